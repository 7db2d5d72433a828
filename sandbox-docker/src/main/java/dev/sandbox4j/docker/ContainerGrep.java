package dev.sandbox4j.docker;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.GrepResult;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.core.AgentRunner;
import dev.sandbox4j.core.BytePipe;
import dev.sandbox4j.core.Globs;
import dev.sandbox4j.core.GrepScan;
import dev.sandbox4j.core.WorkspacePaths;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * Grep over the container's files, decided before anything is read: one {@code find} through the agent lists every
 * entry with its type and size; the host applies excludes, includes, links, special files, {@code maxFileBytes} and
 * the time budget (the shared {@link GrepScan}) to that list in walk order, as the local backend does with its
 * {@code stat}s; then {@code tar} in the container, as the sandbox user, streams only the files to search. A file the
 * scan stops reading early (binary, the time budget) with more than {@link #ABANDON} bytes left ends that tar run
 * and the next starts after it, so a huge sparse or binary file costs its first 8 KiB, never its size. Everything
 * goes through the agent, so closing the sandbox cuts it at once (the engine's archive endpoint, used before, kept
 * reading for tens of seconds and held the container's removal meanwhile).
 */
final class ContainerGrep {
    /** $1: the directory to list (rel). Output: TYPE NUL SIZE NUL PATH NUL per entry; {@code u}/{@code D} unreadable. */
    static final String LIST = """
            walk "$1" 0
            cd -- "$P" || fail NOT_A_DIRECTORY "not a directory: $(rel "$P")"
            find . -mindepth 1 -maxdepth 257 \\( -type d ! \\( -readable -executable \\) -printf 'D\\0%s\\0%P\\0' -prune \\) \\
              -o \\( -type f ! -readable -printf 'u\\0%s\\0%P\\0' \\) -o -printf '%y\\0%s\\0%P\\0'
            exit 0
            """;

    /** $1: the directory the names on stdin (NUL-separated, each starting with ./) are relative to. */
    static final String TAR = """
            walk "$1" 0
            cd -- "$P" || exit 1
            exec /bin/tar -c -f - --format=gnu --no-recursion --null -T -
            """;

    /** Bytes of a file left unread after which the tar run is ended rather than read through. */
    static final long ABANDON = 1 << 20;

    /** Directory levels the walk goes down (as the other backends' walks). */
    private static final int MAX_DEPTH = 256;

    private final ContainerHost sandbox;

    ContainerGrep(ContainerHost sandbox) {
        this.sandbox = sandbox;
    }

    /** One listed entry: its type letter (find's %y, or u/D), size, path under the grep's root, and raw name bytes. */
    record Entry(char type, long size, String path, byte[] raw) {
    }

    GrepResult grep(String rel, FileInfo root, GrepScan scan, GrepOptions options) {
        Duration timeout = options.timeBudget().plusSeconds(30);
        if (!root.isDirectory()) {
            String parent = rel.contains("/") ? rel.substring(0, rel.lastIndexOf('/')) : "";
            byte[] raw = root.name().getBytes(StandardCharsets.UTF_8);
            char type = root.isFile() ? 'f' : root.isSymlink() ? 'l' : 'p';
            search(scan, parent, List.of(new Entry(type, root.size(), rel, raw)), p -> p, timeout);
            return scan.result(rel);
        }
        List<Entry> all = list(rel, timeout);
        Predicate<String> excluded = Globs.any(options.excludes());
        Predicate<String> included = options.includes().isEmpty() ? p -> true : Globs.any(options.includes());
        List<Entry> files = new ArrayList<>();
        String pruned = null;
        for (Entry e : all) {
            if (pruned != null && e.path().startsWith(pruned)) {
                continue;
            }
            if (excluded.test(e.path())) {
                pruned = e.type() == 'd' ? e.path() + "/" : null;
                continue;
            }
            if (e.type() != 'd' && included.test(e.path())) {
                files.add(e);
            }
        }
        search(scan, rel, files, p -> WorkspacePaths.child(rel, p), timeout);
        return scan.result();
    }

    /** Every entry under {@code rel}, in walk order (depth first, names sorted). */
    private List<Entry> list(String rel, Duration timeout) {
        AgentRunner.Ran r = sandbox.internal(List.of("/bin/sh", "-c", WorkspaceScripts.PRELUDE + LIST, "sandbox4j",
                rel), null, null, timeout);
        if (r.exitCode() != 0) {
            throw DockerErrors.script("listing " + (rel.isEmpty() ? "the workspace" : rel), r.exitCode(), r.stderr());
        }
        List<Entry> out = parse(r.stdout());
        for (Entry e : out) {
            if (WorkspacePaths.segments(e.path()).size() > MAX_DEPTH) {
                throw DockerErrors.error(ErrorKind.TOO_LARGE, (rel.isEmpty() ? "the workspace" : rel)
                        + " is nested deeper than " + MAX_DEPTH + " directory levels (at "
                        + WorkspacePaths.child(rel, e.path()) + "); search a subdirectory");
            }
        }
        out.sort((a, b) -> WorkspacePaths.walkOrder(a.path(), b.path()));
        return out;
    }

    /** Parses the listing: triples of NUL-terminated fields; a malformed triple (hostile output) is dropped. */
    static List<Entry> parse(byte[] out) {
        List<Entry> entries = new ArrayList<>();
        int i = 0;
        while (i < out.length) {
            int a = indexOf(out, i);
            int b = a < 0 ? -1 : indexOf(out, a + 1);
            int c = b < 0 ? -1 : indexOf(out, b + 1);
            if (c < 0) {
                break;
            }
            try {
                char type = a - i == 1 ? (char) out[i] : '?';
                long size = Long.parseLong(new String(out, a + 1, b - a - 1, StandardCharsets.US_ASCII));
                byte[] raw = java.util.Arrays.copyOfRange(out, b + 1, c);
                String path = new String(raw, StandardCharsets.UTF_8);
                if (type != '?' && size >= 0 && !path.isEmpty()) {
                    entries.add(new Entry(type, size, path, raw));
                }
            } catch (NumberFormatException ignored) {
                // not what find prints: dropped
            }
            i = c + 1;
        }
        return entries;
    }

    private static int indexOf(byte[] b, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    /** Reports or searches each file in order, reading through tar runs that start where the last one ended. */
    private void search(GrepScan scan, String dir, List<Entry> files, java.util.function.UnaryOperator<String> relOf,
                        Duration timeout) {
        TarRun run = null;
        try {
            for (int i = 0; i < files.size() && !scan.truncated(); i++) {
                Entry e = files.get(i);
                String rel = relOf.apply(e.path());
                switch (e.type()) {
                    case 'l' -> scan.skip(rel, GrepResult.Reason.LINK, "not followed");
                    case 'u', 'D' -> scan.skip(rel, GrepResult.Reason.UNREADABLE,
                            "permission denied (the sandbox user cannot read it)");
                    case 'f' -> {
                        if (!scan.admit(rel, e.size())) {
                            run = end(run); // the time budget: nothing more is read
                            continue;
                        }
                        if (run == null) {
                            run = new TarRun(dir, files, i, timeout);
                        }
                        if (!run.searchNext(scan, e, rel)) {
                            run = end(run);
                        }
                    }
                    default -> scan.skip(rel, GrepResult.Reason.SPECIAL_FILE, "a FIFO, socket or device: not opened");
                }
            }
        } finally {
            end(run);
        }
    }

    private static TarRun end(TarRun run) {
        if (run != null) {
            run.close();
        }
        return null;
    }

    /** One {@code tar} in the container over the regular files from index {@code from} on, read as it streams. */
    private final class TarRun implements AutoCloseable {
        private final BytePipe pipe = new BytePipe(1 << 20);
        private final CompletableFuture<AgentRunner.Ran> done;
        private final TarArchiveInputStream tar;
        private TarArchiveEntry peeked;
        private boolean ended;

        TarRun(String dir, List<Entry> files, int from, Duration timeout) {
            ByteArrayOutputStream names = new ByteArrayOutputStream();
            for (int i = from; i < files.size(); i++) {
                Entry e = files.get(i);
                if (e.type() == 'f') {
                    names.write('.');
                    names.write('/');
                    names.writeBytes(e.raw());
                    names.write(0);
                }
            }
            byte[] stdin = names.toByteArray();
            List<String> cmd = List.of("/bin/sh", "-c", WorkspaceScripts.PRELUDE + TAR, "sandbox4j", dir);
            done = CompletableFuture.supplyAsync(() -> sandbox.internal(cmd, ContainerHost.bytes(stdin), pipe.out,
                    timeout), ContainerHost.HELPERS);
            done.whenComplete((r, t) -> pipe.finish());
            // names compared as bytes (Latin-1 maps each byte to one char): a name that is not UTF-8 still matches
            tar = new TarArchiveInputStream(pipe.in, "ISO-8859-1");
        }

        /** Searches file {@code e} if the stream has it next; false when this run should end (a large unread rest). */
        boolean searchNext(GrepScan scan, Entry e, String rel) {
            TarArchiveEntry t = next();
            String want = "./" + new String(e.raw(), StandardCharsets.ISO_8859_1);
            if (t == null || !t.getName().equals(want)) {
                peeked = t; // not archived (gone, or unreadable now): the next file may be this entry
                scan.skip(rel, GrepResult.Reason.VANISHED, "gone while grep ran");
                return true;
            }
            if (t.isSymbolicLink() || t.isLink()) {
                scan.skip(rel, GrepResult.Reason.LINK, "replaced by a link while grep ran");
                return true;
            }
            if (t.isDirectory()) {
                scan.skip(rel, GrepResult.Reason.VANISHED, "replaced by a directory while grep ran");
                return true;
            }
            if (!t.isFile() || t.isFIFO() || t.isCharacterDevice() || t.isBlockDevice()) {
                scan.skip(rel, GrepResult.Reason.SPECIAL_FILE, "replaced by a special file while grep ran");
                return true;
            }
            Counting in = new Counting(tar);
            try {
                scan.search(rel, in);
            } catch (IOException ex) {
                throw failure(ex);
            }
            return t.getSize() - in.count <= ABANDON;
        }

        private TarArchiveEntry next() {
            if (peeked != null) {
                TarArchiveEntry t = peeked;
                peeked = null;
                return t;
            }
            if (ended) {
                return null;
            }
            try {
                TarArchiveEntry t = tar.getNextEntry();
                if (t == null) {
                    ended = true;
                    checkDone();
                }
                return t;
            } catch (IOException ex) {
                ended = true;
                throw failure(ex);
            }
        }

        /** The stream ended: fine when tar ran to its end (a missing file makes it exit 2), else why it did not. */
        private void checkDone() {
            AgentRunner.Ran r;
            try {
                r = done.join();
            } catch (java.util.concurrent.CompletionException ex) {
                throw failure(ex.getCause() instanceof Exception c ? c : ex);
            }
            if (r.exitCode() == 126 || r.exitCode() == 127) {
                throw DockerErrors.error(ErrorKind.UNSUPPORTED, "grep needs /bin/tar in the sandbox's image: "
                        + r.err().strip());
            }
        }

        private SandboxException failure(Exception cause) {
            sandbox.ensureOpen();
            if (done.isCompletedExceptionally()) {
                try {
                    done.join();
                } catch (java.util.concurrent.CompletionException ex) {
                    if (ex.getCause() instanceof SandboxException se) {
                        return se;
                    }
                }
            }
            return cause instanceof SandboxException se ? se
                    : DockerErrors.error(ErrorKind.IO_ERROR, "grep: reading the files' contents: " + cause.getMessage(),
                    cause);
        }

        @Override
        public void close() {
            pipe.close(); // the copy into it fails, and the agent kills tar
        }
    }

    /** Counts what the scan read of one entry. */
    private static final class Counting extends FilterInputStream {
        long count;

        Counting(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        }

        @Override
        public void close() {
            // the tar stream stays open for the next entry
        }
    }
}
