package dev.sandbox4j.core;

import dev.sandbox4j.Language;

import java.nio.charset.StandardCharsets;

/**
 * How {@link AgentShell#run(dev.sandbox4j.CodeRequest)} hands code to its interpreter: a {@code /bin/sh} wrapper
 * script and the bytes of its stdin. Pure: the shell runs the result as a command like any other.
 *
 * <p>The code never touches a file the sandbox could rewrite between write and run: it comes on stdin after a
 * length line, {@code head -c} copies exactly that many bytes into a pipe, and the interpreter reads the program
 * from that pipe (fd 3), all of it before running it; the user's stdin follows on fd 0. The wrapper runs with the
 * base environment only, so a PATH or LD_PRELOAD the spec sets cannot hand it an impostor {@code head} or
 * interpreter (found under the fixed PATH); {@code env} gives the user's variables to the interpreter alone.
 */
final class CodeWrapper {
    private CodeWrapper() {
    }

    static String interpreter(Language lang) {
        return switch (lang) {
            case PYTHON -> "python3";
            case JAVASCRIPT -> "node";
            case BASH -> "bash";
        };
    }

    /** What the wrapper prints (exit 127) when the interpreter is missing: as a shell says it. */
    static String notFound(Language lang) {
        return interpreter(lang) + ": command not found";
    }

    /** The wrapper script; its arguments ({@code $@}) are the user's variables as {@code NAME=value}. */
    static String script(Language lang, String workspaceRoot) {
        String run = switch (lang) {
            case PYTHON -> "\"$p\" /dev/fd/3";
            // node resolves its main file's real path, which a pipe has not: a loader compiles fd 3 as the module
            case JAVASCRIPT -> "\"$p\" -e 'const fs=require(\"fs\"),M=require(\"module\");"
                    + "const src=fs.readFileSync(3,\"utf8\");fs.closeSync(3);"
                    + "const m=new M(\"" + workspaceRoot + "/[code]\",null);"
                    + "m.filename=\"" + workspaceRoot + "/[code]\";"
                    + "m.paths=M._nodeModulePaths(\"" + workspaceRoot + "\");"
                    + "process.argv.splice(1,0,m.filename);"
                    + "m._compile(src,m.filename)'";
            // bash runs a script as it reads it: read it all first, so it cannot race head for stdin
            case BASH -> "\"$p\" -c 'c=$(cat <&3) || exit 125; exec 3<&-; eval \"$c\"' bash";
        };
        return "IFS= read -r n || exit 125; p=$(command -v " + interpreter(lang) + ") || { echo "
                + "'" + notFound(lang) + "' >&2; exit 127; }; exec 4<&0; head -c \"$n\" | { "
                + "exec env \"$@\" " + run + " 3<&0 0<&4 4<&-; }";
    }

    /** The wrapper's stdin: the code's length in bytes on a line, the code, then the user's stdin (or nothing). */
    static byte[] input(String code, String stdin) {
        byte[] c = code.getBytes(StandardCharsets.UTF_8);
        byte[] in = stdin == null ? new byte[0] : stdin.getBytes(StandardCharsets.UTF_8);
        byte[] header = (c.length + "\n").getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[header.length + c.length + in.length];
        System.arraycopy(header, 0, all, 0, header.length);
        System.arraycopy(c, 0, all, header.length, c.length);
        System.arraycopy(in, 0, all, header.length + c.length, in.length);
        return all;
    }
}
