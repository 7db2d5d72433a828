package dev.sandbox4j.docker;

import java.util.List;

/**
 * The small POSIX sh scripts the backend runs inside the container through the agent, as the sandbox user, for file
 * operations. User data never goes into a script's text: it travels as argv entries ({@code "$1"}) or files.
 */
final class WorkspaceScripts {
    static final String WORKSPACE = "/workspace";

    private WorkspaceScripts() {
    }

    /**
     * The fixed environment of everything the SDK runs for itself in the container (file scripts, probes): a PATH of
     * the image's own directories, the C locale, and empty values for what a shell or the dynamic loader would
     * otherwise take code from. The spec's and the request's environment never reach these processes.
     */
    static final List<String> FIXED_ENV = List.of("PATH=/usr/bin:/bin", "LC_ALL=C", "LANG=C", "HOME=/",
            "BASH_ENV=", "ENV=", "CDPATH=", "LD_PRELOAD=", "LD_LIBRARY_PATH=", "LD_AUDIT=", "GLIBC_TUNABLES=");

    /**
     * The base environment of the user's commands, before the spec's and the request's variables: the container's
     * own environment, which the agent starts every command from.
     */
    static final List<String> BASE_ENV = List.of("PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/workspace",
            "LANG=C.UTF-8", "TMPDIR=/tmp");

    /** Probe at open: languages and workspace writability. */
    static final String PROBE = """
            for l in python3 node bash; do p=$(command -v "$l") && case $p in /*) echo "lang:$l:$p" ;; esac; done
            test -w /workspace && echo ws:ok
            """;

    /** Shared functions of the file scripts: fail KIND MESSAGE, and walk REL CREATE, which sets P. */
    static final String PRELUDE = """
            set -f
            fail() { printf 'E:%s:%s\\n' "$1" "$2" >&2; exit 3; }
            rel() { r=${1#/workspace}; r=${r#/}; printf '%s' "${r:-.}"; }
            mkdir_failed() {
              case $1 in *"No space left"*|*"quota exceeded"*) fail NO_SPACE_LEFT "no space left in the workspace to create the directory $(rel "$P") (its byte or file quota is used up; delete files to make room)" ;; esac
              fail IO_ERROR "cannot create the directory $(rel "$P")"
            }
            walk() {
              _r=$1; _c=$2; P=/workspace
              [ -z "$_r" ] && return 0
              _o=$IFS; IFS=/; set -- $_r; IFS=$_o
              while [ $# -gt 1 ]; do
                P=$P/$1; shift
                if [ -L "$P" ]; then fail PERMISSION_DENIED "refusing to follow the symbolic link $(rel "$P")"; fi
                if [ ! -e "$P" ]; then
                  if [ "$_c" = 1 ]; then
                    _e=$(mkdir -- "$P" 2>&1) || { [ -d "$P" ] && [ ! -L "$P" ]; } || mkdir_failed "$_e"
                  else
                    fail NOT_FOUND "no such file or directory: $(rel "$P")"
                  fi
                elif [ ! -d "$P" ]; then
                  fail NOT_A_DIRECTORY "not a directory: $(rel "$P")"
                fi
              done
              P=$P/$1
            }
            """;

    static final String STAT = """
            walk "$1" 0
            [ -e "$P" ] || [ -L "$P" ] || fail NOT_FOUND "no such file or directory: $(rel "$P")"
            find "$P" -maxdepth 0 -printf '%y\\0%s\\0%m\\0%T@\\0%l\\0'
            """;

    static final String EXISTS = """
            walk "$1" 0
            if [ -e "$P" ] || [ -L "$P" ]; then echo yes; else echo no; fi
            """;

    /**
     * $1 rel, $2 depth (at most 256), $3 hidden (1/0), $4 format, $5 1 when the caller asked for more than 256 levels:
     * then a tree deeper than that is TOO_LARGE, as on the other backends (their walks stop at 256 levels).
     */
    static final String LIST = """
            walk "$1" 0
            [ -n "$1" ] && [ -L "$P" ] && fail PERMISSION_DENIED "refusing to follow the symbolic link $(rel "$P")"
            [ -e "$P" ] || fail NOT_FOUND "no such directory: $(rel "$P")"
            [ -d "$P" ] || fail NOT_A_DIRECTORY "not a directory: $(rel "$P")"
            if [ "$5" = 1 ] && [ -n "$(find "$P" -mindepth 257 -maxdepth 257 -print -quit)" ]; then
                fail TOO_LARGE "$(rel "$P") is nested deeper than 256 directory levels; list or search a subdirectory, or list a smaller depth"
            fi
            if [ "$3" = 1 ]; then find "$P" -mindepth 1 -maxdepth "$2" -printf "$4"
            else find "$P" -mindepth 1 -maxdepth "$2" -name '.*' -prune -o -printf "$4"; fi
            """;

    /**
     * Opens $P on descriptor $1 without ever blocking, then checks what was opened (not the path, which the sandbox may
     * swap at any moment): a regular file or PERMISSION_DENIED at once. Read-write first, because that open never
     * waits for a FIFO's other end (a socket refuses both at once); when read-write is refused (a read-only file, a
     * running binary) the read-only open is interrupted by a watchdog signal after 0.3 s, which only a FIFO swapped
     * in after the checks makes it wait for. Sets S to the opened file's size.
     */
    static final String OPEN = """
            sbx_open() {
              _fd=$1
              if ! { eval "command exec $_fd<>\\"\\$P\\""; } 2>/dev/null; then
                sig=0; trap 'sig=1' USR1
                ( /bin/sleep 0.3; kill -USR1 $$ ) >/dev/null 2>&1 & _w=$!
                { eval "command exec $_fd<\\"\\$P\\""; } 2>/dev/null; _o=$?
                kill "$_w" 2>/dev/null; wait "$_w" 2>/dev/null
                if [ "$_o" != 0 ]; then
                  [ "$sig" = 1 ] && fail PERMISSION_DENIED "not a regular file: $(rel "$P")"
                  fail PERMISSION_DENIED "cannot open $(rel "$P")"
                fi
              fi
              _t=$(/usr/bin/stat -L -c '%F/%s' "/proc/self/fd/$_fd") || exit 1
              case ${_t%/*} in "regular file"|"regular empty file") ;;
                *) fail PERMISSION_DENIED "not a regular file: $(rel "$P")" ;; esac
              S=${_t##*/}
            }
            """;

    /** $1 rel, $2 max bytes, $3 mode (all|stream|bytes|lines), $4 $5 range. Reads only through the checked fd 3. */
    static final String READ = OPEN + """
            walk "$1" 0
            [ -L "$P" ] && fail PERMISSION_DENIED "refusing to follow the symbolic link $(rel "$P")"
            [ -e "$P" ] || fail NOT_FOUND "no such file: $(rel "$P")"
            [ -d "$P" ] && fail IS_A_DIRECTORY "is a directory: $(rel "$P")"
            [ -f "$P" ] || fail PERMISSION_DENIED "not a regular file: $(rel "$P")"
            sbx_open 3
            case $3 in
              all) [ "$S" -gt "$2" ] && fail TOO_LARGE "$(rel "$P") is $S bytes, over the read limit of $2 bytes"
                   printf 'S:%s\\n' "$S" >&2; exec /usr/bin/head -c "$S" <&3 ;;
              stream) exec /usr/bin/cat <&3 ;;
              bytes) /usr/bin/tail -c +"$4" <&3 | /usr/bin/head -c "$5" ;;
              lines) if [ "$5" = all ]; then exec /usr/bin/tail -n +"$4" <&3
                     else /usr/bin/head -n "$5" <&3 | /usr/bin/tail -n +"$4"; fi ;;
            esac
            """;

    /**
     * Commits a write or append: $1 the uploaded temp file (absolute, directly in /workspace, which is a mount point
     * and so never a link), $2 rel target, $3 append (1/0). Creates the parents, refuses links on the way and at the
     * end, keeps the mode of a file it replaces, then renames the temp file over the target (same volume).
     */
    static final String COMMIT_WRITE = OPEN + """
            t=$1
            trap 'rm -f -- "$t"' EXIT
            """ + commit();

    /**
     * A write whose content comes on stdin (small ones: see DockerFiles.put): $1 the temp file to make (directly in
     * /workspace; never an existing path: {@code set -C} opens it O_EXCL), $2 rel target, $3 append (1/0), $4 the
     * byte count it must receive; then the commit of {@link #COMMIT_WRITE}.
     */
    static final String RECEIVE_WRITE = OPEN + """
            t=$1
            trap 'rm -f -- "$t"' EXIT
            _e=$( (set -C; /usr/bin/cat > "$t") 2>&1 ) || case $_e in
              *"No space left"*|*"quota exceeded"*) fail NO_SPACE_LEFT "no space left in the workspace to write $(rel "$2") (its byte or file quota is used up; delete files to make room)" ;;
              *) fail IO_ERROR "receiving the content of $(rel "$2"): $_e" ;;
            esac
            _n=$(/usr/bin/stat -c %s -- "$t") || exit 1
            [ "$_n" = "$4" ] || fail IO_ERROR "received $_n bytes of $4 for $(rel "$2") (content lost on the way); retry"
            """ + commit();

    /**
     * The first half of a streamed write (content of unknown length, DockerFiles.write(InputStream)): $1 the temp file
     * to make, $2 rel target (for messages). Receives stdin into it and prints its size; on failure the temp file is
     * removed. A full workspace stops it at the quota ({@code ENOSPC}), as a command's write would; then
     * {@link #COMMIT_WRITE} puts it in place.
     */
    static final String RECEIVE = """
            t=$1
            _e=$( (set -C; /usr/bin/cat > "$t") 2>&1 ) || { rm -f -- "$t"; case $_e in
              *"No space left"*|*"quota exceeded"*) fail NO_SPACE_LEFT "no space left in the workspace to write $(rel "$2") (its byte or file quota is used up; delete files to make room)" ;;
              *) fail IO_ERROR "receiving the content of $(rel "$2"): $_e" ;;
            esac; }
            /usr/bin/stat -c %s -- "$t" || { rm -f -- "$t"; exit 1; }
            """;

    private static String commit() {
        return """
            walk "$2" 1
            [ -L "$P" ] && fail PERMISSION_DENIED "refusing to write through the symbolic link $(rel "$P")"
            [ -d "$P" ] && fail IS_A_DIRECTORY "is a directory: $(rel "$P")"
            if [ -e "$P" ] && [ ! -f "$P" ]; then fail PERMISSION_DENIED "not a regular file: $(rel "$P")"; fi
            if [ "$3" = 1 ]; then
              sbx_open 4; _s=$(/usr/bin/stat -L -c %s "/proc/self/fd/4") || exit 1
              # a full workspace leaves the file as it was, not half appended
              /usr/bin/cat -- "$t" >> "/proc/self/fd/4" || { /usr/bin/truncate -s "$_s" "/proc/self/fd/4"; exit 1; }
              exit
            fi
            if [ -f "$P" ]; then m=$(stat -c %a -- "$P") && chmod "$(printf '%o' $((0$m & 0777)))" -- "$t" || exit 1; fi
            mv -f -T -- "$t" "$P"
            """;
    }

    static final String MKDIRS = """
            walk "$1" 1
            if [ -L "$P" ]; then fail PERMISSION_DENIED "refusing to follow the symbolic link $(rel "$P")"
            elif [ -d "$P" ]; then exit 0
            elif [ -e "$P" ]; then fail NOT_A_DIRECTORY "exists and is not a directory: $(rel "$P")"
            fi
            _e=$(mkdir -- "$P" 2>&1) || [ -d "$P" ] || mkdir_failed "$_e"
            """;

    /** $1 rel, $2 recursive (1/0). */
    static final String DELETE = """
            walk "$1" 0
            [ -e "$P" ] || [ -L "$P" ] || fail NOT_FOUND "no such file or directory: $(rel "$P")"
            if [ -d "$P" ] && [ ! -L "$P" ]; then
              if [ "$2" = 1 ]; then rm -rf -- "$P"
              else rmdir -- "$P" 2>/dev/null || { [ -n "$(ls -A -- "$P")" ] && fail DIRECTORY_NOT_EMPTY "directory not empty: $(rel "$P")"; rmdir -- "$P"; }
              fi
            else rm -f -- "$P"; fi
            """;

    /** $1 from, $2 to, $3 overwrite (1/0), $4 copy (1/0). */
    static final String MOVE = """
            walk "$1" 0; S=$P
            [ -e "$S" ] || [ -L "$S" ] || fail NOT_FOUND "no such file or directory: $(rel "$S")"
            walk "$2" 1; D=$P
            case "$D/" in "$S/"*) fail INVALID_PATH "cannot move or copy $(rel "$S") into itself" ;; esac
            if [ -e "$D" ] || [ -L "$D" ]; then
              [ "$3" = 1 ] || fail ALREADY_EXISTS "the target exists: $(rel "$D")"
              if [ -d "$D" ] && [ ! -L "$D" ]; then
                [ -n "$(ls -A -- "$D")" ] && fail DIRECTORY_NOT_EMPTY "the target is a non-empty directory: $(rel "$D")"
                if [ ! -d "$S" ] || [ -L "$S" ]; then fail IS_A_DIRECTORY "the target is a directory: $(rel "$D")"; fi
              elif [ -d "$S" ] && [ ! -L "$S" ]; then fail NOT_A_DIRECTORY "the target is not a directory: $(rel "$D")"
              fi
            fi
            if [ "$4" = 1 ]; then
              W=$(mktemp -d -- "${D%/*}/.sandbox4j-copy-XXXXXXXXXX") || exit 1
              trap 'rm -rf -- "$W"' EXIT
              cp -R -P --preserve=mode,timestamps,links -T -- "$S" "$W/c" || exit 1
              mv -f -T -- "$W/c" "$D" || exit 1
            else
              mv -f -T -- "$S" "$D"
            fi
            """;
}
