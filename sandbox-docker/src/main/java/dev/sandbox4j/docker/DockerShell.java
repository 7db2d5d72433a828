package dev.sandbox4j.docker;

import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.OutputListener;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.Shell;
import dev.sandbox4j.StreamType;
import dev.sandbox4j.spi.OutputBuffer;
import dev.sandbox4j.spi.WorkspacePaths;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Commands: one exec per command, run by a tiny wrapper that sets the directory and stdin. Every process of the
 * command inherits an environment marker; a timeout or kill ends every process carrying it (setsid and double forks
 * included), plus unmarked strays that cleared their environment.
 */
final class DockerShell implements Shell {
    private final DockerSandbox sandbox;

    DockerShell(DockerSandbox sandbox) {
        this.sandbox = sandbox;
    }

    static String newMarker() {
        return "x" + UUID.randomUUID().toString().replace("-", "");
    }

    /**
     * The user program's environment, as NAME=VALUE words for the wrapper: the base, then the spec's, then the
     * request's variables (a later one wins). The exec itself runs under {@link DockerSandbox#fixedEnv} only.
     */
    List<String> userEnv(ExecRequest request) {
        List<String> env = new ArrayList<>(WorkspaceScripts.BASE_ENV);
        for (Map<String, String> vars : List.of(sandbox.spec.env(), request.env())) {
            for (Map.Entry<String, String> e : vars.entrySet()) {
                if (!e.getKey().equals(WorkspaceScripts.MARKER)) {
                    env.add(e.getKey() + "=" + e.getValue());
                }
            }
        }
        return env;
    }

    /** The wrapper's command line: see {@link WorkspaceScripts#WRAP}. */
    List<String> wrapped(ExecRequest request, String stdinOrFifo, String mode) {
        List<String> env = userEnv(request);
        List<String> cmd = new ArrayList<>(List.of("/bin/bash", "-c", WorkspaceScripts.WRAP, "sandbox4j", cwd(request),
                relCwd(request), stdinOrFifo, mode, Integer.toString(env.size())));
        cmd.addAll(env);
        cmd.addAll(request.argv());
        return cmd;
    }

    static String cwd(ExecRequest request) {
        return WorkspacePaths.absolute(request.cwd() == null ? "" : request.cwd());
    }

    int limit(ExecRequest request) {
        return request.outputLimit() > 0 ? request.outputLimit() : sandbox.spec.outputLimit();
    }

    /** Uploads stdin to the private run dir; returns its path, or "" for none. */
    String stageStdin(ExecRequest request, String marker) {
        if (!request.hasStdin()) {
            return "";
        }
        byte[] data = request.stdin();
        String name = "in-" + marker;
        sandbox.uploadToRunDir(name, data);
        return WorkspaceScripts.RUN_DIR + "/" + name;
    }

    @Override
    public ExecResult run(ExecRequest request) {
        sandbox.ensureOpen();
        String marker = newMarker();
        Duration timeout = request.timeout() != null ? request.timeout() : sandbox.spec.commandTimeout();
        int limit = limit(request);
        OutputBuffer out = new OutputBuffer(limit);
        OutputBuffer err = new OutputBuffer(limit);
        String stdin = stageStdin(request, marker);
        // Always through the wrapper: it enters the working directory safely, gives the user's environment to the
        // program only, and kills what the program left running when it returns.
        List<String> cmd = wrapped(request, stdin, "fg");
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        Engine.Exec exec = sandbox.engine.exec(sandbox.containerId, cmd, sandbox.user, DockerSandbox.fixedEnv(marker),
                (isErr, bytes) -> (isErr ? err : out).write(bytes));
        Integer exit;
        try {
            exit = exec.await(deadline);
        } catch (InterruptedException e) {
            // Kill as for a timeout; the interrupted caller waits for the kill at most the same grace.
            Killer.Task kill = sandbox.killer.killUntilEnded(exec, true, marker);
            try {
                if (kill.awaitEnd(System.nanoTime() + Killer.GRACE_NANOS)) {
                    exec.closeStream();
                }
            } catch (InterruptedException again) {
                // stop waiting; the kill goes on in the background
            }
            Thread.currentThread().interrupt();
            throw DockerErrors.interrupted("command '" + request.displayCommand() + "'");
        } catch (SandboxException e) {
            exec.closeStream();
            throw gone(e);
        }
        ExecStatus status = ExecStatus.COMPLETED;
        String detail = "";
        int code;
        if (exit == null) {
            status = ExecStatus.TIMEOUT;
            code = -1;
            detail = "timed out after " + human(timeout) + "; " + sandbox.killTimedOut(exec, deadline, marker);
        } else {
            code = exit;
            if (code == 126) {
                SandboxException e = cwdError(code, err.text(), marker);
                if (e != null) {
                    throw e;
                }
            }
            if (code >= 128 || exec.closedByUs) {
                // The wrapper may not have cleaned up: it was killed by a signal (or passes on a signal's status),
                // or processes still held the output when the stream was closed. Kill what carries the marker.
                sandbox.kill(false, marker);
            }
            String killedBy = sandbox.killedBy(code);
            if (killedBy != null) {
                status = ExecStatus.KILLED;
                detail = killedBy;
            }
        }
        out.finish();
        err.finish();
        return new ExecResult(status, code, out.text(), err.text(), Duration.ofNanos(System.nanoTime() - start),
                out.truncation(), err.truncation(), detail);
    }

    static String relCwd(ExecRequest request) {
        String rel = WorkspacePaths.normalize(request.cwd() == null ? "" : request.cwd());
        return rel.isEmpty() ? "." : rel;
    }

    /** The working-directory error the wrapper reported (tagged with this command's marker), or null. */
    static SandboxException cwdError(int exit, String stderr, String marker) {
        String prefix = "E:" + marker + ":";
        if (exit != 126 || !stderr.startsWith(prefix)) {
            return null;
        }
        String rest = stderr.substring(prefix.length()).strip();
        int colon = rest.indexOf(':');
        if (colon < 0) {
            return null;
        }
        try {
            return new SandboxException(dev.sandbox4j.ErrorKind.valueOf(rest.substring(0, colon)),
                    rest.substring(colon + 1));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private SandboxException gone(SandboxException e) {
        if (sandbox.closed()) {
            return DockerErrors.closed(sandbox.id);
        }
        return e;
    }

    static String human(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? (ms / 1000) + " s" : ms + " ms";
    }

    @Override
    public ExecHandle start(ExecRequest request, OutputListener listener) {
        sandbox.ensureOpen();
        String marker = newMarker();
        String cwd = cwd(request);
        int limit = limit(request);
        OutputListener l = listener == null ? OutputListener.NONE : listener;
        OutputBuffer out = new OutputBuffer(limit, t -> l.onOutput(StreamType.STDOUT, t));
        OutputBuffer err = new OutputBuffer(limit, t -> l.onOutput(StreamType.STDERR, t));
        String fifo = WorkspaceScripts.RUN_DIR + "/fifo-" + marker;
        sandbox.ensureRunDir();
        Engine.Ran check = sandbox.engine.run(sandbox.containerId, List.of("/bin/sh", "-c",
                        WorkspaceScripts.BG_CHECK, "sandbox4j", cwd, relCwd(request), fifo), sandbox.user,
                DockerSandbox.fixedEnv(marker + ".check"), null, 1 << 16, DockerSandbox.INTERNAL_TIMEOUT);
        if (check.exitCode() != 0) {
            SandboxException e = cwdError(check.exitCode(), new String(check.stderr(), java.nio.charset.StandardCharsets.UTF_8),
                    marker + ".check");
            throw e != null ? e : DockerErrors.script("checking the working directory", check.exitCode(), check.stderr());
        }
        List<String> cmd = wrapped(request, fifo, "bg");
        long start = System.nanoTime();
        Engine.Exec exec = sandbox.engine.exec(sandbox.containerId, cmd, sandbox.user, DockerSandbox.fixedEnv(marker),
                (isErr, bytes) -> (isErr ? err : out).write(bytes));
        DockerExecHandle h = new DockerExecHandle(sandbox, request, marker, fifo, exec, out, err, start);
        sandbox.handles.add(h);
        h.begin(request.timeout());
        if (request.hasStdin()) {
            h.writeStdin(request.stdin());
            h.closeStdin();
        }
        return h;
    }

    static long nanos(Duration d) {
        return TimeUnit.NANOSECONDS.convert(d);
    }
}
