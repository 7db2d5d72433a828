package dev.sandbox4j.tools;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.OutputListener;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The driver process in the sandbox ({@code browser-driver.py}, passed in argv so the sandbox cannot swap it) and its
 * line protocol: one JSON request a line on its stdin, one JSON answer a line on its stdout, in order. Everything it
 * sends is hostile: a line over {@link #MAX_LINE} characters, a line that is not a JSON object or an answer out of
 * turn ends the browser. One request at a time (calls are serialized).
 */
final class BrowserDriver implements AutoCloseable {
    /** The longest answer line accepted: 100 KB of HTML JSON-escaped (up to 6 characters a byte) fits. */
    static final int MAX_LINE = 1 << 20;
    private static final long LAUNCH_TIMEOUT_MS = 60_000;
    private static final String SCRIPT = load();

    private final ExecHandle process;
    private final Lines lines;
    private final long callTimeoutMs;
    private long nextId;
    /** The driver's first answer: Chromium's pid and version and its profile directory in the sandbox. */
    private Map<String, Object> hello = Map.of();

    private BrowserDriver(ExecHandle process, Lines lines, long callTimeoutMs) {
        this.process = process;
        this.lines = lines;
        this.callTimeoutMs = callTimeoutMs;
    }

    private static String load() {
        try (InputStream in = BrowserDriver.class.getResourceAsStream("browser-driver.py")) {
            if (in == null) {
                throw new IllegalStateException("sandbox-tools lacks its resource browser-driver.py");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static BrowserDriver start(Sandbox sandbox, Browser.Options o) {
        Lines lines = new Lines();
        ExecRequest request = ExecRequest.argv("python3", "-u", "-c", SCRIPT, o.executable(), ".",
                o.evaluateEnabled() ? "eval" : "noeval", Integer.toString(o.width()), Integer.toString(o.height()),
                o.sandboxLoopback() ? "loopback" : "proxy-loopback");
        ExecHandle h = sandbox.shell().start(request, lines);
        lines.process = h;
        BrowserDriver d = new BrowserDriver(h, lines, o.timeout().toMillis() + 15_000);
        try {
            d.hello = d.await(0, LAUNCH_TIMEOUT_MS);
        } catch (SandboxException e) {
            h.close();
            throw e.kind() == ErrorKind.BACKEND_UNAVAILABLE || e.kind() == ErrorKind.TIMEOUT ? e
                    : new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, "the browser did not start: "
                    + e.getMessage(), e);
        }
        return d;
    }

    Map<String, Object> hello() {
        return hello;
    }

    boolean isAlive() {
        return process.isAlive() && !lines.broken.isDone();
    }

    /** Sends one request and returns its answer's fields; a refusal from the driver becomes its typed error. */
    synchronized Map<String, Object> call(Map<String, Object> request) {
        if (!isAlive()) {
            throw new SandboxException(ErrorKind.CLOSED, "the browser is closed"
                    + (lines.broken.isDone() ? " (" + lines.broken.getNow("") + ")" : ""));
        }
        long id = ++nextId;
        request.put("id", id);
        process.writeStdin(Json.write(request) + "\n");
        return await(id, callTimeoutMs);
    }

    private Map<String, Object> await(long id, long timeoutMs) {
        Object line = null;
        CompletableFuture<String> next = lines.next();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        try {
            while (line == null) {
                try {
                    line = CompletableFuture.anyOf(next, lines.broken).get(200, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    if (!process.isAlive()) {
                        String err = process.await(java.time.Duration.ofSeconds(1))
                                .map(r -> " (exit " + r.exitCode() + ": " + tail(r.stderr()) + ")").orElse("");
                        lines.broken.complete("the driver process ended" + err);
                    } else if (System.nanoTime() > deadline) {
                        close();
                        throw new SandboxException(ErrorKind.TIMEOUT, "the browser did not answer within "
                                + timeoutMs + " ms; it was closed");
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new SandboxException(ErrorKind.INTERRUPTED, "interrupted while the browser worked; it was closed");
        } catch (ExecutionException e) {
            throw new SandboxException(ErrorKind.INTERNAL, "browser driver: " + e.getCause(), e.getCause());
        }
        if (lines.broken.isDone()) {
            close();
            throw new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, "the browser ended: " + lines.broken.getNow(""));
        }
        Map<String, Object> m;
        try {
            m = Browser.map(Json.parse((String) line));
        } catch (RuntimeException e) {
            close();
            throw new SandboxException(ErrorKind.INTERNAL, "the browser driver sent a malformed answer; it was closed");
        }
        if (!(m.get("id") instanceof Number n) || n.longValue() != id) {
            close();
            throw new SandboxException(ErrorKind.INTERNAL, "the browser driver answered out of turn; it was closed");
        }
        if (!Boolean.TRUE.equals(m.get("ok"))) {
            ErrorKind kind;
            try {
                kind = ErrorKind.fromCode(String.valueOf(m.get("kind")));
            } catch (IllegalArgumentException e) {
                kind = ErrorKind.INTERNAL;
            }
            String error = Browser.str(m, "error");
            throw new SandboxException(kind, error.length() > 2000 ? error.substring(0, 2000) + "..." : error);
        }
        return m;
    }

    private static String tail(String s) {
        String t = s.strip();
        return t.length() > 1500 ? "..." + t.substring(t.length() - 1500) : t;
    }

    @Override
    public void close() {
        lines.broken.complete("closed");
        process.close();
    }

    /** Splits the driver's stdout into bounded lines, handed over one at a time. */
    static final class Lines implements OutputListener {
        final CompletableFuture<String> broken = new CompletableFuture<>();
        private final StringBuilder line = new StringBuilder();
        private final java.util.ArrayDeque<String> ready = new java.util.ArrayDeque<>();
        private CompletableFuture<String> waiting;
        volatile ExecHandle process;

        synchronized CompletableFuture<String> next() {
            CompletableFuture<String> f = new CompletableFuture<>();
            if (!ready.isEmpty()) {
                f.complete(ready.poll());
            } else {
                waiting = f;
            }
            return f;
        }

        @Override
        public synchronized void onStdout(String text) {
            if (broken.isDone()) {
                return;
            }
            int start = 0;
            for (int i = 0; i < text.length(); i++) {
                if (text.charAt(i) == '\n') {
                    line.append(text, start, i);
                    start = i + 1;
                    deliver(line.toString());
                    line.setLength(0);
                }
            }
            line.append(text, start, text.length());
            if (line.length() > MAX_LINE || ready.size() > 16) {
                line.setLength(0);
                broken.complete("the driver sent more than " + MAX_LINE + " characters in a line, or unasked lines");
                ExecHandle p = process;
                if (p != null) {
                    p.close();
                }
            }
        }

        private void deliver(String l) {
            if (waiting != null) {
                CompletableFuture<String> w = waiting;
                waiting = null;
                w.complete(l);
            } else {
                ready.add(l);
            }
        }
    }
}
