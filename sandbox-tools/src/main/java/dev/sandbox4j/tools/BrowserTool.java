package dev.sandbox4j.tools;

import static dev.sandbox4j.tools.Profiles.fields;
import static dev.sandbox4j.tools.Profiles.opt;
import static dev.sandbox4j.tools.Profiles.req;
import static dev.sandbox4j.tools.Profiles.spec;
import static dev.sandbox4j.tools.ToolParam.Type.BOOLEAN;
import static dev.sandbox4j.tools.ToolParam.Type.STRING;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.tools.Profiles.Tool;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Spacebot's {@code browser} tool: one tool with an {@code action} discriminator over {@link Browser}, one browser
 * per sandbox (started by {@code launch}, ended by {@code close} or with the sandbox). Results carry Spacebot's
 * fields: {@code message}, {@code title}, {@code url}, {@code snapshot} (the interactive elements, each with
 * {@code ref_id}, {@code role}, {@code name}, {@code description}, {@code value}), {@code tabs}, {@code
 * screenshot_path} (with the PNG as an image for protocols that carry one), {@code result} and {@code content}.
 */
final class BrowserTool {
    /** A screenshot larger than this is saved and named but not sent along as an image. */
    static final int MAX_IMAGE_BYTES = 2 << 20;
    static final List<String> ACTIONS = List.of("launch", "navigate", "open", "tabs", "focus", "close_tab",
            "snapshot", "act", "screenshot", "evaluate", "content", "close");
    static final List<String> ACT_KINDS = List.of("click", "type", "press_key", "hover", "scroll_into_view",
            "focus");

    /** The browser of each sandbox, while it runs. */
    private static final Map<Sandbox, Browser> BROWSERS = Collections.synchronizedMap(new WeakHashMap<>());

    private BrowserTool() {
    }

    static Tool spacebot(ToolConfig c) {
        return new Tool(spec("browser", "Drive a headless Chromium running inside the sandbox. Call action launch"
                + " first. navigate/open load a URL (http or https only; private, loopback and cloud metadata"
                + " addresses are blocked, and the sandbox's network policy applies). snapshot lists the page's"
                + " interactive elements with refs (e0, e1, ...; at most " + Browser.MAX_REFS + ", reset by each"
                + " snapshot and navigation); act uses a ref (act_kind click, type with text, press_key with key,"
                + " hover, scroll_into_view, focus). screenshot saves a PNG in the workspace (full_page, or one"
                + " element_ref) and returns its path. content returns the HTML (cut past 100 KB). evaluate runs"
                + " JavaScript only when enabled in the tool config"
                + (c.browser().evaluateEnabled() ? " (it is)" : " (it is not)") + ". close shuts the browser down.",
                List.of(req("action", STRING, "The browser action to perform").withValues(ACTIONS.toArray(String[]::new)),
                        opt("url", STRING, "URL for navigate/open actions (http or https)"),
                        opt("target_id", STRING, "Tab target ID for focus/close_tab actions"),
                        opt("element_ref", STRING, "Element reference from snapshot (e.g., \"e3\") for"
                                + " act/screenshot"),
                        opt("act_kind", STRING, "Kind of interaction for the act action")
                                .withValues(ACT_KINDS.toArray(String[]::new)),
                        opt("text", STRING, "Text to type for act:type"),
                        opt("key", STRING, "Key to press for act:press_key (e.g., \"Enter\", \"Tab\", \"Escape\")"),
                        opt("full_page", BOOLEAN, "Take full-page screenshot instead of viewport only")
                                .withDefault(false),
                        opt("script", STRING, "JavaScript expression to evaluate (requires evaluate_enabled in"
                                + " config)")),
                fields("message", "string", "title", "string", "url", "string", "snapshot", "array", "tabs", "array",
                        "screenshot_path", "string", "result", "string|number|boolean|object|array|null",
                        "content", "string"),
                fields("error", "string")), BrowserTool::call);
    }

    private static ToolResult call(SandboxTools t, Args a, ToolProgress p) {
        String action = a.text("action");
        Sandbox sandbox = t.sandbox();
        if (action.equals("launch")) {
            synchronized (BROWSERS) {
                Browser b = BROWSERS.get(sandbox);
                if (b != null && b.isOpen()) {
                    return ok("the browser is already running", null, new LinkedHashMap<>());
                }
                b = Browser.launch(sandbox, t.config().browser());
                BROWSERS.put(sandbox, b);
                return ok("browser launched (" + b.version() + ")", null, new LinkedHashMap<>());
            }
        }
        if (!ACTIONS.contains(action)) {
            throw new Args.ArgException("action must be one of " + String.join(", ", ACTIONS) + ", got '" + action
                    + "'");
        }
        Browser b = BROWSERS.get(sandbox);
        if (b == null || !b.isOpen()) {
            if (action.equals("close")) {
                return ok("no browser was running", null, new LinkedHashMap<>());
            }
            throw new SandboxException(ErrorKind.CLOSED, "the browser is not running; call action launch first");
        }
        Map<String, Object> f = new LinkedHashMap<>();
        switch (action) {
            case "navigate" -> {
                return ok("navigated to " + a.text("url"), b.navigate(a.text("url")), f);
            }
            case "open" -> {
                String url = a.optString("url", null);
                return ok("opened a new tab" + (url == null ? "" : " at " + url), b.open(url), f);
            }
            case "tabs" -> {
                return tabs(b, f);
            }
            case "focus" -> {
                return ok("switched to tab " + a.text("target_id"), b.focus(a.text("target_id")), f);
            }
            case "close_tab" -> {
                String id = a.optString("target_id", null);
                return ok("closed " + (id == null ? "the active tab" : "tab " + id), b.closeTab(id), f);
            }
            case "snapshot" -> {
                return snapshot(b, f);
            }
            case "act" -> {
                return act(b, a, f);
            }
            case "screenshot" -> {
                return screenshot(t, b, a, f);
            }
            case "evaluate" -> {
                String result = b.evaluate(a.text("script"));
                f.put("result", Json.parse(result));
                return ok("evaluated", b.page(), f);
            }
            case "content" -> {
                Browser.Content c = b.content();
                f.put("content", c.truncated() ? c.html() + "... [truncated, " + c.totalBytes() + " bytes total]"
                        : c.html());
                return ok(c.truncated() ? "page HTML, cut at " + Browser.MAX_CONTENT_BYTES + " of " + c.totalBytes()
                        + " bytes" : "page HTML, " + c.totalBytes() + " bytes", c.page(), f);
            }
            default -> { // close
                synchronized (BROWSERS) {
                    BROWSERS.remove(sandbox);
                }
                b.close();
                return ok("browser closed", null, f);
            }
        }
    }

    private static ToolResult tabs(Browser b, Map<String, Object> f) {
        List<Object> tabs = new ArrayList<>();
        for (Browser.Tab tab : b.tabs()) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("target_id", tab.targetId());
            one.put("title", tab.title());
            one.put("url", tab.url());
            one.put("active", tab.active());
            tabs.add(one);
        }
        f.put("tabs", tabs);
        return ok(tabs.size() + " tab(s) open", null, f);
    }

    private static ToolResult snapshot(Browser b, Map<String, Object> f) {
        Browser.Snapshot s = b.snapshot();
        List<Object> elements = new ArrayList<>();
        for (Browser.Element e : s.elements()) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("ref_id", e.ref());
            one.put("role", e.role());
            one.put("name", e.name());
            one.put("description", e.description());
            one.put("value", e.value());
            elements.add(one);
        }
        f.put("snapshot", elements);
        return ok(elements.size() + " interactive element(s) found", s.page(), f);
    }

    private static ToolResult act(Browser b, Args a, Map<String, Object> f) {
        String kind = a.text("act_kind");
        String ref = a.optString("element_ref", null);
        if (!kind.equals("press_key") && ref == null) {
            throw new Args.ArgException("act " + kind + " needs element_ref (a ref from the last snapshot)");
        }
        Browser.Page page = switch (kind) {
            case "click" -> b.click(ref);
            case "type" -> b.type(ref, a.string("text"));
            case "press_key" -> b.pressKey(ref, a.text("key"));
            case "hover" -> b.hover(ref);
            case "scroll_into_view" -> b.scrollIntoView(ref);
            case "focus" -> b.focusElement(ref);
            default -> throw new Args.ArgException("act_kind must be one of " + String.join(", ", ACT_KINDS)
                    + ", got '" + kind + "'");
        };
        return ok(kind + (ref == null ? "" : " on " + ref) + " done", page, f);
    }

    private static ToolResult screenshot(SandboxTools t, Browser b, Args a, Map<String, Object> f) {
        Browser.Screenshot s = b.screenshot(a.optBool("full_page", false), a.optString("element_ref", null));
        f.put("screenshot_path", s.path());
        List<ToolResult.Image> images = new ArrayList<>();
        if (s.bytes() <= MAX_IMAGE_BYTES) {
            byte[] png = t.sandbox().files().readBytes(s.path(), 0, MAX_IMAGE_BYTES + 1);
            if (png.length <= MAX_IMAGE_BYTES) { // the sandbox may have swapped the file since
                images.add(new ToolResult.Image(Base64.getEncoder().encodeToString(png), "image/png"));
            }
        }
        Map<String, Object> all = page("screenshot saved to " + s.path() + " (" + s.bytes() + " bytes)", s.page(), f);
        return ToolResult.ok(all, images);
    }

    private static ToolResult ok(String message, Browser.Page page, Map<String, Object> f) {
        return ToolResult.ok(page(message, page, f));
    }

    private static Map<String, Object> page(String message, Browser.Page page, Map<String, Object> f) {
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("message", message);
        if (page != null) {
            all.put("title", page.title());
            all.put("url", page.url());
        }
        all.putAll(f);
        return all;
    }
}
