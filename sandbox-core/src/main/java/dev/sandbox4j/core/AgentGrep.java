package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.GrepResult;
import dev.sandbox4j.SandboxException;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * Grep through the agent, decided before anything is read: one {@code list} operation gives every entry's type and
 * size; the host applies excludes, includes, links, special and unreadable files, {@code maxFileBytes} and the time
 * budget (the shared {@link GrepScan}) in walk order; then {@code cat} operations stream only the files to search, as
 * chunked records, without a process per file. A file the scan stops reading early (binary, the time budget) with over
 * {@link #ABANDON} bytes left ends that cat and the next starts after it, so a huge sparse or binary file costs its
 * first 8 KiB, never its size.
 */
final class AgentGrep {
    /** Bytes of a file left unread after which the cat is ended rather than read through. */
    static final long ABANDON = 1 << 20;
    /** Names (hex, in argv) one cat takes at most, in bytes and in count: a FILE frame stays far below MAX_FRAME. */
    static final int CAT_ARGV_BYTES = 2 << 20;
    static final int CAT_FILES = 20_000;

    private final AgentWorkspace ws;

    AgentGrep(AgentWorkspace ws) {
        this.ws = ws;
    }

    GrepResult grep(String rel, GrepScan scan, GrepOptions options) {
        FileInfo root = ws.stat(rel);
        if (root.isSymlink()) {
            throw ws.error(ErrorKind.PERMISSION_DENIED, "refusing to follow the symbolic link " + rel, null);
        }
        Duration timeout = options.timeBudget().plusSeconds(30);
        if (!root.isDirectory()) {
            String parent = WorkspacePaths.parent(rel);
            char type = root.isFile() ? 'f' : 'o';
            AgentEntries.Entry e = new AgentEntries.Entry(type, root.size(), 0, root.modified(), null, root.name(),
                    root.name().getBytes(StandardCharsets.UTF_8));
            search(scan, parent, List.of(e), p -> rel, timeout);
            return scan.result(rel);
        }
        List<AgentEntries.Entry> all = new ArrayList<>(ws.walk(rel, AgentWorkspace.MAX_WALK_DEPTH + 1, true, true));
        all.sort((a, b) -> WorkspacePaths.walkOrder(a.path(), b.path()));
        Predicate<String> excluded = Globs.any(options.excludes());
        Predicate<String> included = options.includes().isEmpty() ? p -> true : Globs.any(options.includes());
        List<AgentEntries.Entry> files = new ArrayList<>();
        String pruned = null;
        for (AgentEntries.Entry e : all) {
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

    /** Reports or searches each file in order, reading through cats that start where the last one ended. */
    private void search(GrepScan scan, String dir, List<AgentEntries.Entry> files,
                        java.util.function.UnaryOperator<String> relOf, Duration timeout) {
        Cat cat = null;
        try {
            for (int i = 0; i < files.size() && !scan.truncated(); i++) {
                AgentEntries.Entry e = files.get(i);
                String rel = relOf.apply(e.path());
                switch (e.type()) {
                    case 'l' -> scan.skip(rel, GrepResult.Reason.LINK, "not followed");
                    case 'u', 'D' -> scan.skip(rel, GrepResult.Reason.UNREADABLE,
                            "permission denied (the sandbox user cannot read it)");
                    case 'f' -> {
                        if (!scan.admit(rel, e.size())) {
                            cat = end(cat); // the time budget: nothing more is read
                            continue;
                        }
                        if (cat == null || !cat.has(i)) {
                            end(cat);
                            cat = new Cat(dir, files, i, timeout);
                        }
                        if (!cat.searchNext(scan, e, rel)) {
                            cat = end(cat);
                        }
                    }
                    default -> scan.skip(rel, GrepResult.Reason.SPECIAL_FILE, "a FIFO, socket or device: not opened");
                }
            }
        } finally {
            end(cat);
        }
    }

    private static Cat end(Cat cat) {
        if (cat != null) {
            cat.close();
        }
        return null;
    }

    /** One {@code cat} operation over the regular files from index {@code from} on, read as it streams. */
    private final class Cat implements AutoCloseable {
        private final BytePipe pipe = new BytePipe(1 << 20);
        private final CompletableFuture<AgentRunner.Ran> done;
        private final DataInputStream in;
        private final int last;

        Cat(String dir, List<AgentEntries.Entry> files, int from, Duration timeout) {
            List<String> argv = new ArrayList<>(List.of("cat", dir));
            int bytes = 0;
            int i = from;
            for (; i < files.size() && argv.size() < CAT_FILES && bytes < CAT_ARGV_BYTES; i++) {
                AgentEntries.Entry e = files.get(i);
                if (e.type() == 'f') {
                    String hex = HexFormat.of().formatHex(e.raw());
                    argv.add(hex);
                    bytes += hex.length() + 4;
                }
            }
            last = i - 1;
            String[] args = argv.toArray(new String[0]);
            done = CompletableFuture.supplyAsync(() -> ws.op("grep: reading the files of " + (dir.isEmpty() ? "."
                    : dir), null, pipe.out, 0, timeout, args), Background.workers());
            done.whenComplete((r, t) -> pipe.finish());
            in = new DataInputStream(pipe.in);
        }

        /** Whether file {@code i} of the list is in this cat's argv. */
        boolean has(int i) {
            return i <= last;
        }

        /** Searches file {@code e}, this cat's next; false when this cat should end (a large unread rest). */
        boolean searchNext(GrepScan scan, AgentEntries.Entry e, String rel) {
            try {
                int status = in.read();
                switch (status) {
                    case 'f' -> {
                        Chunks content = new Chunks(in);
                        scan.search(rel, content);
                        if (e.size() - content.count > ABANDON) {
                            return false;
                        }
                        return content.drain(ABANDON);
                    }
                    case 'l' -> scan.skip(rel, GrepResult.Reason.LINK, "replaced by a link while grep ran");
                    case 'd' -> scan.skip(rel, GrepResult.Reason.VANISHED, "replaced by a directory while grep ran");
                    case 's' -> scan.skip(rel, GrepResult.Reason.SPECIAL_FILE,
                            "replaced by a special file while grep ran");
                    case 'u' -> scan.skip(rel, GrepResult.Reason.UNREADABLE,
                            "permission denied (the sandbox user cannot read it)");
                    case 'v' -> scan.skip(rel, GrepResult.Reason.VANISHED, "gone while grep ran");
                    default -> throw failure(new IOException(status < 0 ? "the files' contents ended early"
                            : "a malformed record"));
                }
                return true;
            } catch (IOException ex) {
                throw failure(ex);
            }
        }

        private SandboxException failure(Exception cause) {
            if (done.isDone()) {
                try {
                    done.join();
                } catch (java.util.concurrent.CompletionException ex) {
                    if (ex.getCause() instanceof SandboxException se) {
                        return se;
                    }
                }
            }
            return ws.error(ErrorKind.IO_ERROR, "grep: reading the files' contents: " + cause.getMessage(), cause);
        }

        @Override
        public void close() {
            pipe.close(); // the copy into it fails, and the operation is killed
        }
    }

    /** One file's content in a cat's output: chunks ({@code int} length + bytes) up to an empty one. */
    private static final class Chunks extends InputStream {
        private final DataInputStream in;
        private int left;
        private boolean ended;
        long count;

        Chunks(DataInputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            while (left == 0) {
                if (ended) {
                    return -1;
                }
                int n = in.readInt();
                if (n < 0 || n > (1 << 20)) {
                    throw new IOException("a bad chunk length " + n);
                }
                left = n;
                ended = n == 0;
            }
            int got = in.read(b, off, Math.min(len, left));
            if (got < 0) {
                throw new IOException("the files' contents ended early");
            }
            left -= got;
            count += got;
            return got;
        }

        /** Reads to the file's end; false (stop) when more than {@code max} bytes were left. */
        boolean drain(long max) throws IOException {
            byte[] buf = new byte[8192];
            long drained = 0;
            for (int n; (n = read(buf, 0, buf.length)) >= 0; ) {
                drained += n;
                if (drained > max) {
                    return false;
                }
            }
            return true;
        }
    }
}
