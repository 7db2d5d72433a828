package dev.sandbox4j.docker;

/**
 * The small POSIX sh scripts the backend runs inside the container, as the sandbox user, for file operations and
 * process control. User data never goes into a script's text: it travels as argv entries ({@code "$1"}) or files.
 */
final class WorkspaceScripts {
    static final String WORKSPACE = "/workspace";
    /** Private directory (on a second volume) for stdin files, code files and FIFOs. */
    static final String RUN_DIR = "/var/sandbox4j/run";
    static final String MARKER = "SANDBOX4J_EXEC";

    private WorkspaceScripts() {
    }

    /** Reaper PID 1: ignores TERM/INT/HUP (and SIGKILL from inside the namespace), reaps orphans. */
    static final String REAPER = "trap '' TERM INT HUP; while :; do sleep 1 & wait $!; done";

    /**
     * Checks the working directory $1 (its workspace-relative form in $2); on failure prints
     * {@code E:<marker>:<KIND>:<message>} and exits 126, which the shell turns into an exception.
     */
    private static final String CWD = """
            cfail() { printf 'E:%s:%s:%s\\n' "$SANDBOX4J_EXEC" "$1" "$2" >&2; exit 126; }
            if [ ! -d "$1" ]; then
              if [ -e "$1" ] || [ -L "$1" ]; then cfail NOT_A_DIRECTORY "the working directory is not a directory: $2"; fi
              cfail NOT_FOUND "the working directory does not exist: $2"
            fi
            cd -- "$1" 2>/dev/null || cfail PERMISSION_DENIED "cannot enter the working directory: $2"
            """;

    /** Runs a user command: $1 cwd, $2 its relative form, $3 stdin file or empty, then argv. */
    static final String WRAP = CWD + """
            if [ -n "$3" ]; then exec 0<"$3"; rm -f -- "$3"; else exec 0</dev/null; fi
            shift 3
            exec "$@"
            """;

    /**
     * Runs a background command whose stdin is a FIFO: $1 cwd, $2 its relative form, $3 the FIFO {@link #BG_CHECK}
     * made, then argv.
     */
    static final String BG_WRAP = CWD + """
            f=$3; shift 3
            [ -p "$f" ] || exit 125
            ( SANDBOX4J_EXEC=$SANDBOX4J_EXEC.stdin; export SANDBOX4J_EXEC
              exec 3<>"$f" >/dev/null 2>&1 </dev/null; exec sleep 2147483647 ) &
            exec 0<"$f"
            exec "$@"
            """;

    /**
     * Before a background command starts: checks the working directory and creates its stdin FIFO ($3). The command's
     * exec starts asynchronously, so a FIFO made only by {@link #BG_WRAP} might not exist yet when the caller's first
     * {@code writeStdin} comes; made here, it does, and the write waits in the pipe for the command.
     */
    static final String BG_CHECK = CWD + """
            mkfifo -m 600 -- "$3" || exit 125
            """;

    /**
     * Kills, without forking (bash builtins only, so it works when a fork bomb holds every pid), every process whose
     * environment carries one of the given markers ($2...), and with $1 = 1 also every process that carries no marker
     * at all (strays that cleared their environment). Zombies are skipped (PID 1 reaps them). Stops them first so they
     * cannot fork while being killed. Prints each given marker it found on a process, one a line: a marker not found
     * means its command's process has not started yet (or already ended).
     */
    static final String KILLER = """
            sweep=$1; shift; me=$$
            declare -A found
            for round in 1 2 3 4 5 6 7 8 9 10; do
              pids=()
              for d in /proc/[0-9]*; do
                p=${d#/proc/}
                [[ $p == 1 || $p == "$me" ]] && continue
                st=; read -r st 2>/dev/null < "$d/stat" || continue
                st=${st##*) }
                [[ ${st:0:1} == Z ]] && continue
                m=
                while IFS= read -r -d '' kv; do
                  if [[ $kv == SANDBOX4J_EXEC=* ]]; then m=${kv#SANDBOX4J_EXEC=}; break; fi
                done 2>/dev/null < "$d/environ" || true
                hit=0
                for t in "$@"; do [[ $m == "$t" ]] && hit=1; done
                (( hit )) && found[$m]=1
                if [[ $sweep == 1 && -z $m ]]; then hit=1; fi
                (( hit )) && pids+=("$p")
              done
              (( ${#pids[@]} )) || break
              kill -STOP "${pids[@]}" 2>/dev/null
              kill -KILL "${pids[@]}" 2>/dev/null
            done
            (( ${#found[@]} )) && printf '%s\\n' "${!found[@]}"
            exit 0
            """;

    /** Probe at open: languages, OOM counter, workspace writability, run dir. */
    static final String PROBE = """
            for l in python3 node bash; do command -v "$l" >/dev/null 2>&1 && echo "lang:$l"; done
            test -w /workspace && echo ws:ok
            mkdir -p /var/sandbox4j/run 2>/dev/null; test -w /var/sandbox4j/run && echo run:ok
            echo "oom:$(sed -n 's/^oom_kill //p' /sys/fs/cgroup/memory/memory.oom_control /sys/fs/cgroup/memory.events 2>/dev/null | head -n1)"
            """;

    static final String OOM_COUNT = "sed -n 's/^oom_kill //p' /sys/fs/cgroup/memory/memory.oom_control "
            + "/sys/fs/cgroup/memory.events 2>/dev/null | head -n1";

    /** Shared functions of the file scripts: fail KIND MESSAGE, and walk REL CREATE, which sets P. */
    static final String PRELUDE = """
            set -f
            fail() { printf 'E:%s:%s\\n' "$1" "$2" >&2; exit 3; }
            rel() { r=${1#/workspace}; r=${r#/}; printf '%s' "${r:-.}"; }
            walk() {
              _r=$1; _c=$2; P=/workspace
              [ -z "$_r" ] && return 0
              _o=$IFS; IFS=/; set -- $_r; IFS=$_o
              while [ $# -gt 1 ]; do
                P=$P/$1; shift
                if [ -L "$P" ]; then fail PERMISSION_DENIED "refusing to follow the symbolic link $(rel "$P")"; fi
                if [ ! -e "$P" ]; then
                  if [ "$_c" = 1 ]; then
                    mkdir -- "$P" 2>/dev/null || { [ -d "$P" ] && [ ! -L "$P" ]; } || fail IO_ERROR "cannot create the directory $(rel "$P")"
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

    /** $1 rel, $2 depth, $3 hidden (1/0), $4 format. */
    static final String LIST = """
            walk "$1" 0
            [ -n "$1" ] && [ -L "$P" ] && fail PERMISSION_DENIED "refusing to follow the symbolic link $(rel "$P")"
            [ -e "$P" ] || fail NOT_FOUND "no such directory: $(rel "$P")"
            [ -d "$P" ] || fail NOT_A_DIRECTORY "not a directory: $(rel "$P")"
            if [ "$3" = 1 ]; then find "$P" -mindepth 1 -maxdepth "$2" -printf "$4"
            else find "$P" -mindepth 1 -maxdepth "$2" -name '.*' -prune -o -printf "$4"; fi
            """;

    /** $1 rel, $2 max bytes, $3 mode (all|stream|bytes|lines), $4 $5 range. */
    static final String READ = """
            walk "$1" 0
            [ -L "$P" ] && fail PERMISSION_DENIED "refusing to follow the symbolic link $(rel "$P")"
            [ -e "$P" ] || fail NOT_FOUND "no such file: $(rel "$P")"
            [ -d "$P" ] && fail IS_A_DIRECTORY "is a directory: $(rel "$P")"
            [ -f "$P" ] || fail PERMISSION_DENIED "not a regular file: $(rel "$P")"
            case $3 in
              all) exec 3< "$P" || exit 1; s=$(stat -L -c %s /proc/self/fd/3) || exit 1
                   [ "$s" -gt "$2" ] && fail TOO_LARGE "$(rel "$P") is $s bytes, over the read limit of $2 bytes"
                   printf 'S:%s\\n' "$s" >&2; exec head -c "$s" <&3 ;;
              stream) exec cat -- "$P" ;;
              bytes) tail -c +"$4" -- "$P" | head -c "$5" ;;
              lines) if [ "$5" = all ]; then exec tail -n +"$4" -- "$P"; else head -n "$5" -- "$P" | tail -n +"$4"; fi ;;
            esac
            """;

    /**
     * Commits a write or append: $1 the uploaded temp file (absolute, directly in /workspace, which is a mount point
     * and so never a link), $2 rel target, $3 append (1/0). Creates the parents, refuses links on the way and at the
     * end, keeps the mode of a file it replaces, then renames the temp file over the target (same volume).
     */
    static final String COMMIT_WRITE = """
            t=$1
            trap 'rm -f -- "$t"' EXIT
            walk "$2" 1
            [ -L "$P" ] && fail PERMISSION_DENIED "refusing to write through the symbolic link $(rel "$P")"
            [ -d "$P" ] && fail IS_A_DIRECTORY "is a directory: $(rel "$P")"
            if [ -e "$P" ] && [ ! -f "$P" ]; then fail PERMISSION_DENIED "not a regular file: $(rel "$P")"; fi
            if [ "$3" = 1 ]; then cat -- "$t" >> "$P"; exit; fi
            if [ -f "$P" ]; then m=$(stat -c %a -- "$P") && chmod "$(printf '%o' $((0$m & 0777)))" -- "$t" || exit 1; fi
            mv -f -T -- "$t" "$P"
            """;

    static final String MKDIRS = """
            walk "$1" 1
            if [ -L "$P" ]; then fail PERMISSION_DENIED "refusing to follow the symbolic link $(rel "$P")"
            elif [ -d "$P" ]; then exit 0
            elif [ -e "$P" ]; then fail NOT_A_DIRECTORY "exists and is not a directory: $(rel "$P")"
            fi
            mkdir -- "$P" 2>/dev/null || [ -d "$P" ] || fail IO_ERROR "cannot create the directory $(rel "$P")"
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
              T=${D%/*}/.sandbox4j-copy-$$
              cp -R -P --preserve=mode,timestamps,links -T -- "$S" "$T" || { rm -rf -- "$T"; exit 1; }
              mv -f -T -- "$T" "$D" || { rm -rf -- "$T"; exit 1; }
            else
              mv -f -T -- "$S" "$D"
            fi
            """;
}
