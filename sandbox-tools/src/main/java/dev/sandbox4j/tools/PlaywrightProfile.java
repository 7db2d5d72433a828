package dev.sandbox4j.tools;

import static dev.sandbox4j.tools.ToolParam.Type.BOOLEAN;
import static dev.sandbox4j.tools.ToolParam.Type.NUMBER;
import static dev.sandbox4j.tools.ToolParam.Type.STRING;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The {@code playwright} profile: Playwright MCP's ({@code @playwright/mcp} 0.0.68) tool names, parameters,
 * descriptions and read-only annotations for what {@link Browser} can do, with its markdown text results
 * ({@code ### Page}, {@code ### Snapshot} as YAML, {@code ### Result}). One browser per sandbox, started by the first
 * {@code browser_navigate} (or {@code browser_tabs new}), ended by {@code browser_close} or with the sandbox.
 * Parameters the engine cannot honour are left out of the schemas, so a call naming them is refused
 * ({@code docs/tools.md} lists them).
 */
final class PlaywrightProfile {
    private static final Map<Sandbox, Browser> BROWSERS = Collections.synchronizedMap(new WeakHashMap<>());
    /** Each browser's tabs in the order they were first seen: Playwright numbers tabs by creation, CDP does not. */
    private static final Map<Browser, List<String>> ORDER = Collections.synchronizedMap(new WeakHashMap<>());
    private static final String ELEMENT = "Human-readable element description used to obtain permission to interact"
            + " with the element";
    private static final String REF = "Exact target element reference from the page snapshot";
    private static final String NO_TABS = "No open tabs. Navigate to a URL to create one.";
    private static final ToolSpec.Hints ACTS = new ToolSpec.Hints(true, false, true);
    private static final ToolSpec.Hints READS = new ToolSpec.Hints(false, false, true);

    private PlaywrightProfile() {
    }

    private static ToolParam req(String name, ToolParam.Type type, String description) {
        return new ToolParam(name, type, description, true);
    }

    private static ToolParam opt(String name, ToolParam.Type type, String description) {
        return new ToolParam(name, type, description, false);
    }

    /** A tool whose result is Playwright MCP's text, served as {@code {content}}. */
    private static ToolSpec spec(String name, String description, List<ToolParam> params) {
        Capability cap = Profiles.capabilityOf(name);
        return new ToolSpec(name, description, params, cap, cap == Capability.READ_FILES ? READS : ACTS,
                Map.of("content", "string"), List.of(), Map.of(), FilesystemTools.textOutput());
    }

    static void add(ToolConfig c, List<Profiles.Tool> out) {
        out.add(new Profiles.Tool(spec("browser_close", "Close the page", List.of()), PlaywrightProfile::close));
        if (c.browser().evaluateEnabled()) {
            out.add(new Profiles.Tool(spec("browser_evaluate", "Evaluate JavaScript expression on page or element",
                    List.of(req("function", STRING, "() => { /* code */ } or (element) => { /* code */ } when"
                            + " element is provided"))), PlaywrightProfile::evaluate));
        }
        out.add(new Profiles.Tool(spec("browser_press_key", "Press a key on the keyboard",
                List.of(req("key", STRING, "Name of the key to press or a character to generate, such as"
                        + " `ArrowLeft` or `a`"))), (t, a, p) -> page(t, b -> b.pressKey(null, a.text("key")))));
        out.add(new Profiles.Tool(spec("browser_type", "Type text into editable element",
                List.of(opt("element", STRING, ELEMENT), req("ref", STRING, REF),
                        req("text", STRING, "Text to type into the element"),
                        opt("submit", BOOLEAN, "Whether to submit entered text (press Enter after)"))),
                PlaywrightProfile::type));
        out.add(new Profiles.Tool(spec("browser_navigate", "Navigate to a URL",
                List.of(req("url", STRING, "The URL to navigate to"))), PlaywrightProfile::navigate));
        out.add(new Profiles.Tool(spec("browser_navigate_back", "Go back to the previous page in the history",
                List.of()), (t, a, p) -> page(t, Browser::back)));
        out.add(new Profiles.Tool(spec("browser_take_screenshot", "Take a screenshot of the current page. You"
                + " can't perform actions based on the screenshot, use browser_snapshot for actions.",
                List.of(req("type", STRING, "Image format for the screenshot. Default is png.").withValues("png")
                                .withDefault("png"),
                        opt("element", STRING, "Human-readable element description used to obtain permission to"
                                + " screenshot the element. If not provided, the screenshot will be taken of"
                                + " viewport. If element is provided, ref must be provided too."),
                        opt("ref", STRING, "Exact target element reference from the page snapshot. If not"
                                + " provided, the screenshot will be taken of viewport. If ref is provided, element"
                                + " must be provided too."),
                        opt("fullPage", BOOLEAN, "When true, takes a screenshot of the full scrollable page,"
                                + " instead of the currently visible viewport. Cannot be used with element"
                                + " screenshots."))), PlaywrightProfile::screenshot));
        out.add(new Profiles.Tool(spec("browser_snapshot", "Capture accessibility snapshot of the current page,"
                + " this is better than screenshot", List.of()), (t, a, p) -> page(t, null)));
        out.add(new Profiles.Tool(spec("browser_click", "Perform click on a web page",
                List.of(opt("element", STRING, ELEMENT), req("ref", STRING, REF))),
                (t, a, p) -> page(t, b -> b.click(a.text("ref")))));
        out.add(new Profiles.Tool(spec("browser_hover", "Hover over element on page",
                List.of(opt("element", STRING, ELEMENT), req("ref", STRING, REF))),
                (t, a, p) -> page(t, b -> b.hover(a.text("ref")))));
        out.add(new Profiles.Tool(spec("browser_tabs", "List, create, close, or select a browser tab.",
                List.of(req("action", STRING, "Operation to perform").withValues("list", "new", "close", "select"),
                        opt("index", NUMBER, "Tab index, used for close/select. If omitted for close, current tab"
                                + " is closed."))), PlaywrightProfile::tabs));
        out.add(new Profiles.Tool(spec("browser_wait_for", "Wait for text to appear or disappear or a specified"
                + " time to pass", List.of(opt("time", NUMBER, "The time to wait in seconds"),
                        opt("text", STRING, "The text to wait for"),
                        opt("textGone", STRING, "The text to wait for to disappear"))), PlaywrightProfile::waitFor));
    }

    private static Browser running(SandboxTools t) {
        Browser b = BROWSERS.get(t.sandbox());
        if (b == null || !b.isOpen()) {
            throw new SandboxException(ErrorKind.CLOSED, NO_TABS);
        }
        return b;
    }

    private static Browser started(SandboxTools t) {
        synchronized (BROWSERS) {
            Browser b = BROWSERS.get(t.sandbox());
            if (b == null || !b.isOpen()) {
                b = Browser.launch(t.sandbox(), t.config().browser());
                BROWSERS.put(t.sandbox(), b);
            }
            return b;
        }
    }

    private static ToolResult text(String text) {
        return ToolResult.ok(Map.of("content", text));
    }

    private static ToolResult navigate(SandboxTools t, Args a, ToolProgress p) {
        String url = a.text("url");
        BrowserUrls.check(url, t.config().browser().sandboxLoopback()); // refused before a browser starts
        return page(t, true, b -> b.navigate(url));
    }

    private static ToolResult type(SandboxTools t, Args a, ToolProgress p) {
        String ref = a.text("ref");
        String text = a.string("text");
        boolean submit = a.optBool("submit", false);
        return page(t, b -> {
            Browser.Page after = b.type(ref, text);
            return submit ? b.pressKey(ref, "Enter") : after;
        });
    }

    /** Runs the action (none for a plain snapshot), then answers with the page and its snapshot. */
    private static ToolResult page(SandboxTools t, java.util.function.Function<Browser, Browser.Page> action) {
        return page(t, false, action);
    }

    private static ToolResult page(SandboxTools t, boolean start,
                                   java.util.function.Function<Browser, Browser.Page> action) {
        Browser b = start ? started(t) : running(t);
        if (action != null) {
            action.apply(b);
        }
        Browser.Snapshot s = b.snapshot();
        return text(pageSection(s.page()) + "### Snapshot\n```yaml\n" + yaml(s.tree())
                + (s.treeTruncated() ? "\n# [snapshot cut]" : "") + "\n```");
    }

    /** Playwright's order: the time first (at most 30 s), then the text to go, then the text to come. */
    private static ToolResult waitFor(SandboxTools t, Args a, ToolProgress p) {
        Double time = a.optDouble("time");
        String text = a.optString("text", null);
        String gone = a.optString("textGone", null);
        boolean noTime = time == null || time == 0;
        if (noTime && (text == null || text.isEmpty()) && (gone == null || gone.isEmpty())) {
            throw new Args.ArgException("Either time, text or textGone must be provided");
        }
        if (time != null && time < 0) {
            throw new Args.ArgException("time must not be negative, got " + time);
        }
        Browser b = running(t);
        if (!noTime) {
            try {
                Thread.sleep((long) (Math.min(30, time) * 1000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SandboxException(ErrorKind.INTERRUPTED, "browser_wait_for was interrupted");
            }
        }
        if (gone != null && !gone.isEmpty()) {
            b.waitForText(gone, true);
        }
        if (text != null && !text.isEmpty()) {
            b.waitForText(text, false);
        }
        String what = text != null && !text.isEmpty() ? text : gone != null && !gone.isEmpty() ? gone
                : Json.write(time);
        ToolResult page = page(t, null);
        return text("### Result\nWaited for " + what + "\n" + page.get("content"));
    }

    private static String pageSection(Browser.Page page) {
        return "### Page\n- Page URL: " + page.url() + "\n- Page Title: " + page.title() + "\n";
    }

    /**
     * The engine's outline ({@code - role "name" [ref=eN]}, two spaces a level) in Playwright's YAML shape: a line
     * with children ends in {@code :}, static text is {@code - text: "..."}, the root web area is {@code document}.
     */
    static String yaml(String tree) {
        String[] lines = tree.split("\n", -1);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.isEmpty()) {
                continue;
            }
            int indent = line.indexOf('-');
            String rest = line.substring(indent + 2);
            if (rest.startsWith("StaticText ")) {
                rest = "text: " + rest.substring("StaticText ".length());
            } else if (rest.startsWith("RootWebArea")) {
                rest = "document" + rest.substring("RootWebArea".length());
            }
            boolean parent = i + 1 < lines.length && lines[i + 1].indexOf('-') > indent;
            out.append(line, 0, indent).append("- ").append(rest).append(parent ? ":" : "").append('\n');
        }
        return out.toString().stripTrailing();
    }

    private static ToolResult screenshot(SandboxTools t, Args a, ToolProgress p) {
        String ref = a.optString("ref", null);
        boolean full = a.optBool("fullPage", false);
        if (full && ref != null) {
            throw new Args.ArgException("fullPage cannot be used with element screenshots");
        }
        Browser.Screenshot s = running(t).screenshot(full, ref);
        List<ToolResult.Image> images = new ArrayList<>();
        if (s.bytes() <= BrowserTool.MAX_IMAGE_BYTES) {
            byte[] png = t.sandbox().files().readBytes(s.path(), 0, BrowserTool.MAX_IMAGE_BYTES + 1);
            if (png.length <= BrowserTool.MAX_IMAGE_BYTES) { // the sandbox may have swapped the file since
                images.add(new ToolResult.Image(Base64.getEncoder().encodeToString(png), "image/png"));
            }
        }
        String what = ref != null ? a.optString("element", ref) : full ? "full page" : "viewport";
        return ToolResult.ok(Map.of("content", "### Result\n- [Screenshot of " + what + "](" + s.path() + ")"),
                images);
    }

    private static ToolResult tabs(SandboxTools t, Args a, ToolProgress p) {
        String action = a.text("action");
        Double index = a.optDouble("index");
        Browser b;
        switch (action) {
            case "list" -> b = running(t);
            case "new" -> {
                Browser before = BROWSERS.get(t.sandbox());
                b = started(t);
                if (before == b) { // a browser that just started already shows its one blank tab
                    ordered(b); // the tabs open before this one come first
                    b.open(null);
                }
            }
            case "close" -> {
                b = running(t);
                b.closeTab(index == null ? null : tab(b, index).targetId());
            }
            case "select" -> {
                if (index == null) {
                    throw new Args.ArgException("browser_tabs select needs index");
                }
                b = running(t);
                b.focus(tab(b, index).targetId());
            }
            default -> throw new Args.ArgException("action must be one of list, new, close, select, got '"
                    + action + "'");
        }
        StringBuilder out = new StringBuilder("### Result");
        List<Browser.Tab> tabs = ordered(b);
        for (int i = 0; i < tabs.size(); i++) {
            Browser.Tab tab = tabs.get(i);
            // CDP gives a page without a title its URL as title; Playwright shows document.title, empty there
            String title = tab.title().equals(tab.url()) ? "" : tab.title();
            out.append("\n- ").append(i).append(": ").append(tab.active() ? "(current) " : "").append('[')
                    .append(title).append("](").append(tab.url()).append(')');
        }
        return text(out.toString());
    }

    /** The tabs in creation order (as far as this profile saw them open). */
    private static List<Browser.Tab> ordered(Browser b) {
        List<Browser.Tab> now = b.tabs();
        List<String> order = ORDER.computeIfAbsent(b, k -> new ArrayList<>());
        synchronized (order) {
            order.removeIf(id -> now.stream().noneMatch(t -> t.targetId().equals(id)));
            now.stream().map(Browser.Tab::targetId).filter(id -> !order.contains(id)).forEach(order::add);
            List<Browser.Tab> out = new ArrayList<>(now);
            out.sort(java.util.Comparator.comparingInt(t -> order.indexOf(t.targetId())));
            return out;
        }
    }

    private static Browser.Tab tab(Browser b, double index) {
        List<Browser.Tab> tabs = ordered(b);
        if (index != Math.rint(index) || index < 0 || index >= tabs.size()) {
            throw new SandboxException(ErrorKind.NOT_FOUND, "Tab " + (long) index + " not found; " + tabs.size()
                    + " tab(s) open (browser_tabs list)");
        }
        return tabs.get((int) index);
    }

    private static ToolResult evaluate(SandboxTools t, Args a, ToolProgress p) {
        String result = running(t).evaluate("(" + a.text("function") + ")()");
        return text("### Result\n" + Json.writePretty(Json.parse(result))); // as JSON.stringify(v, null, 2)
    }

    private static ToolResult close(SandboxTools t, Args a, ToolProgress p) {
        Browser b;
        synchronized (BROWSERS) {
            b = BROWSERS.remove(t.sandbox());
        }
        if (b != null) {
            b.close();
        }
        return text("### Result\n" + NO_TABS);
    }
}
