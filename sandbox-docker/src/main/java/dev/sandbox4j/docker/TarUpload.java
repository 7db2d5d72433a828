package dev.sandbox4j.docker;

import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

import java.io.IOException;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Files into a container through the engine's archive endpoint: a tar written on a worker, streamed through a pipe. */
final class TarUpload {
    private TarUpload() {
    }


    /** One file or directory to upload; directories have null content. */
    record Entry(String name, int mode, long size, InputStreamSupplier content, String linkTarget) {
        Entry(String name, int mode, long size, InputStreamSupplier content) {
            this(name, mode, size, content, null);
        }

        /** A symbolic link {@code name -> target}. */
        static Entry link(String name, String target) {
            return new Entry(name, 0777, 0, null, target);
        }
    }

    @FunctionalInterface
    interface InputStreamSupplier {
        InputStream open() throws IOException;
    }

    /** Uploads entries (names relative to {@code remoteDir}) owned by uid:gid, streaming through a pipe. */
    static void upload(com.github.dockerjava.api.DockerClient control, String containerId, String remoteDir,
                       List<Entry> entries, int uid, int gid) {
        PipedInputStream in = new PipedInputStream(1 << 20);
        CompletableFuture<Void> writer;
        try {
            PipedOutputStream pout = new PipedOutputStream(in);
            writer = CompletableFuture.runAsync(() -> {
                try (TarArchiveOutputStream tar = new TarArchiveOutputStream(pout)) {
                    tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
                    tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
                    for (Entry en : entries) {
                        if (en.linkTarget() != null) {
                            TarArchiveEntry link = new TarArchiveEntry(en.name(),
                                    org.apache.commons.compress.archivers.tar.TarConstants.LF_SYMLINK);
                            link.setLinkName(en.linkTarget());
                            link.setIds(uid, gid);
                            tar.putArchiveEntry(link);
                            tar.closeArchiveEntry();
                            continue;
                        }
                        boolean dir = en.content() == null;
                        TarArchiveEntry te = new TarArchiveEntry(dir ? en.name() + "/" : en.name());
                        te.setMode((dir ? 040000 : 0100000) | en.mode());
                        te.setIds(uid, gid);
                        te.setModTime(java.util.Date.from(Instant.now()));
                        if (!dir) {
                            te.setSize(en.size());
                        }
                        tar.putArchiveEntry(te);
                        if (!dir) {
                            try (InputStream data = en.content().open()) {
                                long copied = data.transferTo(tar);
                                if (copied != en.size()) {
                                    throw new IOException("content changed size while uploading " + en.name());
                                }
                            }
                        }
                        tar.closeArchiveEntry();
                    }
                    tar.finish();
                } catch (IOException ex) {
                    throw new java.io.UncheckedIOException(ex);
                }
            }, dev.sandbox4j.core.Background.workers());
        } catch (IOException ex) {
            throw DockerErrors.error(dev.sandbox4j.ErrorKind.IO_ERROR, "preparing an upload: " + ex.getMessage(), ex);
        }
        try {
            control.copyArchiveToContainerCmd(containerId).withRemotePath(remoteDir).withTarInputStream(in)
                    // copyUIDGID stays false: the engine then keeps the tar headers' uid/gid (the sandbox user).
                    // copyUIDGID=true makes Engine 20.10 look the container user up in the *host's* passwd.
                    .withNoOverwriteDirNonDir(false).exec();
        } catch (RuntimeException ex) {
            writer.cancel(true);
            throw DockerErrors.translate("uploading to the sandbox", ex);
        } finally {
            try {
                in.close();
            } catch (IOException ignored) {
                // closed
            }
        }
        try {
            writer.get(30, TimeUnit.SECONDS);
        } catch (Exception ex) {
            Throwable c = ex.getCause() != null ? ex.getCause() : ex;
            throw DockerErrors.error(dev.sandbox4j.ErrorKind.IO_ERROR, "uploading to the sandbox: " + c.getMessage(), c);
        }
    }
}
