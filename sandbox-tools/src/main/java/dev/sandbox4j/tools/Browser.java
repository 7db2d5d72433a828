package dev.sandbox4j.tools;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A headless Chromium running inside a sandbox, driven over the DevTools protocol by a small driver this library
 * ships into the sandbox (CDP over {@code --remote-debugging-pipe}: no port is opened anywhere). The browser is a
 * background command of the sandbox, so it lives in its jail or container, counts against its limits and dies with
 * it. Navigation goes through the sandbox's egress policy: only {@code http} and {@code https}; private, loopback and
 * cloud metadata addresses are refused here before any request is made, and every name the page loads is checked
 * again by the egress proxy (its allow-list and address deny-list, docs/network.md).
 *
 * <p>Element refs ({@code e0}, {@code e1}, ...) come from the last {@link #snapshot()} of the active tab and name
 * nothing after a navigation, a tab switch or the next snapshot. One browser per sandbox is the intended use; calls
 * are serialized. Needs a backend with background processes and isolation (a jail or container, whose only way out is the egress proxy); others (the memory backend) are
 * refused with {@link ErrorKind#UNSUPPORTED}. See docs/browser.md.
 *
 * <pre>{@code
 * try (Browser b = Browser.launch(sandbox)) {
 *     b.navigate("https://example.com/");
 *     Browser.Snapshot s = b.snapshot();
 *     b.type("e0", "hello");
 *     b.click("e1");
 * }
 * }</pre>
 */
public final class Browser implements AutoCloseable {
    /** Debian's Chromium binary (its /usr/bin/chromium wrapper reads /etc/chromium.d, which a jail may not have). */
    public static final String DEFAULT_EXECUTABLE = "/usr/lib/chromium/chromium";
    /** Bytes of HTML {@link #content()} returns at most. */
    public static final int MAX_CONTENT_BYTES = 100_000;
    /** Interactive elements one snapshot gives refs to at most. */
    public static final int MAX_REFS = 200;

    /**
     * How to launch: the Chromium binary inside the sandbox, whether {@link #evaluate} is allowed (off by default:
     * arbitrary script in an agent-driven page), the viewport, the workspace directory screenshots go to, how long
     * one navigation or action may take, and whether URLs may name the sandbox's own loopback (off by default; then
     * {@code localhost} and {@code 127.0.0.1} reach only the sandbox itself, never the host).
     */
    public record Options(String executable, boolean evaluateEnabled, int width, int height, String screenshotDir,
                          Duration timeout, boolean sandboxLoopback) {
        public Options {
            Objects.requireNonNull(executable, "executable");
            Objects.requireNonNull(screenshotDir, "screenshotDir");
            Objects.requireNonNull(timeout, "timeout");
            if (width < 100 || width > 4096 || height < 100 || height > 4096) {
                throw new IllegalArgumentException("viewport " + width + "x" + height + " is outside 100..4096");
            }
            if (timeout.isNegative() || timeout.isZero() || timeout.toSeconds() > 300) {
                throw new IllegalArgumentException("timeout " + timeout + " must be positive and at most 300 s");
            }
            if (screenshotDir.startsWith("/") || screenshotDir.contains("..") || screenshotDir.isBlank()) {
                throw new IllegalArgumentException("screenshotDir must be a relative workspace path without '..'");
            }
        }

        public static Options defaults() {
            return new Options(DEFAULT_EXECUTABLE, false, 1280, 720, "screenshots", Duration.ofSeconds(30), false);
        }

        public Options withEvaluateEnabled(boolean on) {
            return new Options(executable, on, width, height, screenshotDir, timeout, sandboxLoopback);
        }

        public Options withExecutable(String path) {
            return new Options(path, evaluateEnabled, width, height, screenshotDir, timeout, sandboxLoopback);
        }

        public Options withViewport(int w, int h) {
            return new Options(executable, evaluateEnabled, w, h, screenshotDir, timeout, sandboxLoopback);
        }

        public Options withScreenshotDir(String dir) {
            return new Options(executable, evaluateEnabled, width, height, dir, timeout, sandboxLoopback);
        }

        public Options withTimeout(Duration t) {
            return new Options(executable, evaluateEnabled, width, height, screenshotDir, t, sandboxLoopback);
        }

        public Options withSandboxLoopback(boolean on) {
            return new Options(executable, evaluateEnabled, width, height, screenshotDir, timeout, on);
        }
    }

    /** The active tab after an action: its title, URL and, after a navigation, the document's HTTP status (or -1). */
    public record Page(String title, String url, int status) {
    }

    /** One open tab. */
    public record Tab(String targetId, String title, String url, boolean active) {
    }

    /** An interactive element of a snapshot, addressable by {@code ref} until the page changes. */
    public record Element(String ref, String role, String name, String description, String value) {
    }

    /**
     * The active tab's accessibility tree: the interactive elements with refs (at most {@link #MAX_REFS}) and an
     * indented outline of the whole tree ({@code - role "name" [ref=eN]}, cut at about 60,000 characters).
     */
    public record Snapshot(Page page, List<Element> elements, String tree, boolean treeTruncated) {
        public Snapshot {
            elements = List.copyOf(elements);
        }
    }

    /** A PNG saved in the workspace: its path there and its size in bytes. */
    public record Screenshot(Page page, String path, long bytes) {
    }

    /** The page's HTML, cut at {@link #MAX_CONTENT_BYTES} bytes of UTF-8; {@code totalBytes} is its whole size. */
    public record Content(Page page, String html, long totalBytes, boolean truncated) {
    }

    private final Sandbox sandbox;
    private final Options options;
    private final BrowserDriver driver;

    private Browser(Sandbox sandbox, Options options, BrowserDriver driver) {
        this.sandbox = sandbox;
        this.options = options;
        this.driver = driver;
    }

    /** Starts Chromium in the sandbox with the default options. */
    public static Browser launch(Sandbox sandbox) {
        return launch(sandbox, Options.defaults());
    }

    /**
     * Starts Chromium in the sandbox and waits until it answers.
     *
     * @throws SandboxException UNSUPPORTED on a backend without background processes or isolation;
     *                          BACKEND_UNAVAILABLE when Chromium or python3 is missing or does not start
     */
    public static Browser launch(Sandbox sandbox, Options options) {
        Objects.requireNonNull(sandbox, "sandbox");
        Objects.requireNonNull(options, "options");
        for (Feature f : List.of(Feature.BACKGROUND_PROCESSES, Feature.ISOLATION)) {
            if (!sandbox.info().features().contains(f)) {
                throw new SandboxException(ErrorKind.UNSUPPORTED, "a browser needs a sandbox with " + f
                        + ", which the " + sandbox.info().backend() + " backend does not have (use local or docker)");
            }
        }
        return new Browser(sandbox, options, BrowserDriver.start(sandbox, options));
    }

    public Options options() {
        return options;
    }

    /** Chromium's version, as it reports it (e.g. {@code Chrome/131.0.6778.85}). */
    public String version() {
        return str(driver.hello(), "version");
    }

    /** Chromium's profile directory inside the sandbox (unique per browser; tests find its processes by it). */
    String profileDir() {
        return str(driver.hello(), "profile");
    }

    /** Whether the browser still runs (not closed, not killed with its sandbox). */
    public boolean isOpen() {
        return driver.isAlive();
    }

    /** Loads {@code url} in the active tab and waits for its load event; refs are reset. */
    public Page navigate(String url) {
        return page(driver.call(request("navigate", "url", BrowserUrls.check(url, options.sandboxLoopback()))));
    }

    /**
     * Goes one entry back in the active tab's history and waits for that load (the page as is when there is none);
     * refs are reset. The entry was loaded through the egress policy before and is loaded through it again.
     */
    public Page back() {
        return page(driver.call(request("back")));
    }

    /**
     * Waits until the active tab's visible text ({@code innerText}) contains {@code text}, or with {@code gone} no
     * longer does, for at most the options' timeout ({@code timeout} after that).
     */
    public Page waitForText(String text, boolean gone) {
        if (text == null || text.isEmpty()) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "the text to wait for is empty");
        }
        return page(driver.call(request("wait_text", "text", text, "gone", gone)));
    }

    /** Opens a new tab, makes it active and loads {@code url} there (about:blank when null). */
    public Page open(String url) {
        Map<String, Object> r = request("open");
        if (url != null) {
            r.put("url", BrowserUrls.check(url, options.sandboxLoopback()));
        }
        return page(driver.call(r));
    }

    public List<Tab> tabs() {
        List<Tab> out = new ArrayList<>();
        for (Object o : list(driver.call(request("tabs")).get("tabs"))) {
            Map<String, Object> t = map(o);
            out.add(new Tab(str(t, "target_id"), str(t, "title"), str(t, "url"), Boolean.TRUE.equals(t.get("active"))));
        }
        return out;
    }

    /** Makes the tab with this target id the active one. */
    public Page focus(String targetId) {
        return page(driver.call(request("focus", "target_id", Objects.requireNonNull(targetId, "targetId"))));
    }

    /** Closes the tab with this target id, or the active one when null; the last tab closed leaves a blank one. */
    public Page closeTab(String targetId) {
        Map<String, Object> r = request("close_tab");
        if (targetId != null) {
            r.put("target_id", targetId);
        }
        return page(driver.call(r));
    }

    public Snapshot snapshot() {
        Map<String, Object> r = driver.call(request("snapshot"));
        List<Element> elements = new ArrayList<>();
        for (Object o : list(r.get("elements"))) {
            Map<String, Object> e = map(o);
            elements.add(new Element(str(e, "ref_id"), str(e, "role"), str(e, "name"), str(e, "description"),
                    str(e, "value")));
        }
        return new Snapshot(page(r), elements, str(r, "tree"), Boolean.TRUE.equals(r.get("tree_truncated")));
    }

    public Page click(String ref) {
        return act("click", ref, null, null);
    }

    /** Replaces the element's text (its value, or its contents when editable) with {@code text}, as typed. */
    public Page type(String ref, String text) {
        return act("type", ref, Objects.requireNonNull(text, "text"), null);
    }

    /** Presses one key ({@code Enter}, {@code Tab}, {@code Escape}, arrows, ... or one character) on the element, or
     * on the page when {@code ref} is null. */
    public Page pressKey(String ref, String key) {
        return act("press_key", ref, null, Objects.requireNonNull(key, "key"));
    }

    public Page hover(String ref) {
        return act("hover", ref, null, null);
    }

    public Page scrollIntoView(String ref) {
        return act("scroll_into_view", ref, null, null);
    }

    public Page focusElement(String ref) {
        return act("focus", ref, null, null);
    }

    private Page act(String kind, String ref, String text, String key) {
        if (ref == null && !kind.equals("press_key")) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, kind + " needs an element ref from a snapshot");
        }
        Map<String, Object> r = request("act", "kind", kind);
        if (ref != null) {
            r.put("ref", ref);
        }
        if (text != null) {
            r.put("text", text);
        }
        if (key != null) {
            r.put("key", key);
        }
        return page(driver.call(r));
    }

    /**
     * Saves a PNG of the viewport, the whole page ({@code fullPage}, at most 16,384 pixels either way) or one element
     * ({@code ref}) under the screenshot directory of the workspace.
     */
    public Screenshot screenshot(boolean fullPage, String ref) {
        String path = options.screenshotDir() + "/screenshot-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS")) + "-"
                + Long.toHexString(System.nanoTime() & 0xfffff) + ".png";
        Map<String, Object> r = request("screenshot", "path", path);
        r.put("full_page", fullPage);
        if (ref != null) {
            r.put("ref", ref);
        }
        Map<String, Object> out = driver.call(r);
        dev.sandbox4j.FileInfo saved = sandbox.files().stat(path); // its size as the file system says, not the driver
        return new Screenshot(page(out), saved.path(), saved.size());
    }

    public Content content() {
        Map<String, Object> r = driver.call(request("content"));
        return new Content(page(r), str(r, "content"), num(r, "total_bytes"),
                Boolean.TRUE.equals(r.get("truncated")));
    }

    /**
     * Evaluates a JavaScript expression in the active tab (promises awaited) and returns its value as JSON text.
     *
     * @throws SandboxException PERMISSION_DENIED unless {@link Options#evaluateEnabled()}
     */
    public String evaluate(String script) {
        Objects.requireNonNull(script, "script");
        if (!options.evaluateEnabled()) {
            throw new SandboxException(ErrorKind.PERMISSION_DENIED, "evaluate is disabled; enable it with"
                    + " Options.withEvaluateEnabled(true) (the tool config's evaluate_enabled)");
        }
        return str(driver.call(request("evaluate", "script", script)), "result");
    }

    /** The active tab's title and URL. */
    public Page page() {
        return page(driver.call(request("page")));
    }

    /** Kills Chromium and its driver. Idempotent. */
    @Override
    public void close() {
        driver.close();
    }

    @Override
    public String toString() {
        return "Browser[sandbox=" + sandbox.id() + ", open=" + isOpen() + "]";
    }

    private Map<String, Object> request(String op, Object... kv) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("op", op);
        r.put("timeout", options.timeout().toSeconds());
        for (int i = 0; i < kv.length; i += 2) {
            r.put((String) kv[i], kv[i + 1]);
        }
        return r;
    }

    private static Page page(Map<String, Object> r) {
        Object status = r.get("status");
        return new Page(str(r, "title"), str(r, "url"), status instanceof Number n ? n.intValue() : -1);
    }

    static String str(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v == null ? "" : v.toString();
    }

    static long num(Map<String, Object> m, String key) {
        return m.get(key) instanceof Number n ? n.longValue() : 0;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        if (o instanceof Map<?, ?> m) {
            return (Map<String, Object>) m;
        }
        throw new SandboxException(ErrorKind.INTERNAL, "the browser driver sent a malformed answer");
    }

    static List<?> list(Object o) {
        return o instanceof List<?> l ? l : List.of();
    }
}
