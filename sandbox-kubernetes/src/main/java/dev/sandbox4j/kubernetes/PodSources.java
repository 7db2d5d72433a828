package dev.sandbox4j.kubernetes;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Workspace;
import dev.sandbox4j.WorkspaceSource;
import dev.sandbox4j.core.AgentRunner;
import dev.sandbox4j.core.HostDirs;
import dev.sandbox4j.core.TreeCopy;
import dev.sandbox4j.snapshot.Snapshots;

import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A pod's workspace from a host directory (docs/workspaces.md): a copy (and an overlay, which a pod cannot mount over
 * a host directory of another machine, so it is a copy with the same promises: the host directory is never written,
 * the changes are reviewable) is streamed once the agent runs as a plain tar into the pod's own {@code tar -x}, run as
 * the sandbox user in the sandbox (so it writes nothing the sandbox could not); its change set compares a download
 * of the workspace through the file API with the host directory ({@link dev.sandbox4j.core.DownloadedChangeSet}).
 * Binds, volumes and mounts name paths or storage of this machine: not claimed, so refused at open.
 */
final class PodSources {
    /** Margin of the ctime fence, as the other backends' (the kernel's coarse clock can stamp a tick late). */
    static final Duration FENCE_MARGIN = Duration.ofMillis(50);
    private static final Duration SEED_TIMEOUT = Duration.ofMinutes(10);

    final WorkspaceSource source;
    /** The checked real path of the source directory, or null (an empty workspace). */
    final Path real;
    private final Object realKey;
    private volatile Instant opened;
    private volatile String detail;

    private PodSources(WorkspaceSource source, Path real, Object realKey) {
        this.source = source;
        this.real = real;
        this.realKey = realKey;
        this.detail = real == null ? "empty" : null;
    }

    /** Checks the source directory (typed errors) before anything is claimed. */
    static PodSources prepare(SandboxSpec spec) {
        WorkspaceSource s = spec.workspace();
        if (s.kind() != WorkspaceSource.Kind.COPY && s.kind() != WorkspaceSource.Kind.OVERLAY) {
            return new PodSources(s, null, null);
        }
        Path real = HostDirs.check(s.hostDir().orElseThrow(), "the workspace source", false);
        return new PodSources(s, real, HostDirs.fileKey(real));
    }

    /**
     * Streams the source into the pod's workspace (before the spec's files, which win): refused, typed and before a
     * byte is sent, when it holds more than {@code sizeLimit} (the workspace emptyDir's; 0 for none), since past it
     * the kubelet evicts the pod.
     */
    void seed(AgentRunner runner, long sizeLimit) {
        if (real == null) {
            return;
        }
        opened = Instant.now();
        TreeCopy.Result size;
        try {
            size = TreeCopy.walk(real, new TreeCopy.Visitor() {
                @Override
                public void directory(Path dir, Path rel) {
                }

                @Override
                public void file(Path file, Path rel, long bytes) {
                }

                @Override
                public void link(Path link, Path rel, Path target) {
                }
            });
        } catch (IOException e) {
            throw KubeErrors.error(ErrorKind.IO_ERROR, "reading the workspace source " + real + ": " + e.getMessage(),
                    e);
        }
        if (sizeLimit > 0 && size.bytes() > sizeLimit) {
            throw KubeErrors.error(ErrorKind.NO_SPACE_LEFT, "the workspace source " + real + " holds " + size.bytes()
                    + " bytes, more than the workspace emptyDir's sizeLimit of " + sizeLimit + " (the kubelet would "
                    + "evict the pod)");
        }
        untar(runner);
        String what = source.kind() == WorkspaceSource.Kind.COPY ? "copy " + real
                : "overlay " + real + " as a copy (a pod cannot mount an overlay of this machine's directory)";
        detail = what + " (streamed: " + size.files() + " files and links, " + size.bytes() + " bytes"
                + (size.skipped() > 0 ? ", " + size.skipped() + " FIFOs/devices/sockets skipped" : "") + ")";
    }

    private void untar(AgentRunner runner) {
        AtomicReference<Exception> writing = new AtomicReference<>();
        AgentRunner.Ran r;
        try (PipedInputStream in = new PipedInputStream(1 << 20); PipedOutputStream out = new PipedOutputStream(in)) {
            Thread writer = new Thread(() -> {
                try (out) {
                    Snapshots.writeTree(real, out);
                } catch (IOException | RuntimeException e) {
                    writing.set(e);
                }
            }, "sandbox4j-pod-seed");
            writer.setDaemon(true);
            writer.start();
            try {
                r = runner.run(List.of("tar", "-xpf", "-", "-C", PoolPlan.WORKSPACE), in,
                        java.io.OutputStream.nullOutputStream(), 64 << 10, SEED_TIMEOUT);
            } finally {
                in.close(); // a writer still writing (tar ended early) gets an error, not a wait
                writer.join(SEED_TIMEOUT.toMillis());
            }
        } catch (IOException e) {
            throw KubeErrors.error(ErrorKind.IO_ERROR, "streaming the workspace source " + real + " into the pod: "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw KubeErrors.interrupted("streaming the workspace source " + real + " into the pod");
        } catch (java.util.concurrent.TimeoutException e) {
            throw KubeErrors.error(ErrorKind.TIMEOUT, "streaming the workspace source " + real + " into the pod took "
                    + "more than " + SEED_TIMEOUT.toMinutes() + " minutes", e);
        }
        Exception w = writing.get();
        if (w instanceof SandboxException se) {
            throw se;
        }
        if (r.exitCode() == 127) {
            throw KubeErrors.error(ErrorKind.UNSUPPORTED, "the pod's image has no tar, which a workspace from a host "
                    + "directory (or a snapshot) is streamed into: " + r.err().strip());
        }
        if (r.exitCode() != 0 || w != null) {
            throw KubeErrors.error(ErrorKind.IO_ERROR, "streaming the workspace source " + real + " into the pod "
                    + "failed: " + (w != null ? w.getMessage() + "; " : "") + "tar: " + r.err().strip());
        }
    }

    /** What {@code info().details()} says under {@code workspace source}. */
    String detail() {
        return detail;
    }

    /** The change set of a copy or overlay source, or null (an empty workspace). */
    Workspace changeSet(FileSystem files, Runnable guard) {
        if (real == null || opened == null) {
            return null;
        }
        return new dev.sandbox4j.core.DownloadedChangeSet(source, real, () -> {
            if (!realKey.equals(HostDirs.fileKey(real))) {
                throw KubeErrors.error(ErrorKind.CONFLICT, "the source directory " + real + " is no longer the "
                        + "directory the sandbox opened on (moved, or a link swapped in above it); no change set");
            }
        }, opened, FENCE_MARGIN, Set.of(), dir -> Snapshots.download(files, dir), guard);
    }

}
