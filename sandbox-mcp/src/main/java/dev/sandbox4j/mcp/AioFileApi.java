package dev.sandbox4j.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.tools.SandboxTools;
import dev.sandbox4j.tools.ToolConfig;
import dev.sandbox4j.tools.ToolProfile;
import dev.sandbox4j.tools.ToolResult;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.Part;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * AIO Sandbox's file API ({@code /v1/file/*}, the {@code aio} surface document) over one sandbox of the server's,
 * so the document's own client code (Python {@code requests}, Node {@code fetch}, {@code curl}) works against
 * sandbox4j with only the base URL changed. The JSON endpoints run the {@code aio} profile's tools (one mechanism for
 * MCP and HTTP) and wrap their results in AIO's {@code {success, message, data}}; upload, download and the watch
 * endpoints use the file API directly, with HTTP status codes as the document says. AIO is one sandbox per server: so
 * is this API (opened on the first request, reopened if it was closed, closed with the server); MCP clients keep
 * their own sandboxes.
 */
final class AioFileApi extends HttpServlet {
    private static final Logger LOG = LoggerFactory.getLogger(AioFileApi.class);
    static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> TOOLS = Map.of("read", "file_read", "write", "file_write",
            "replace", "file_replace", "search", "file_search", "find", "file_find", "grep", "file_grep",
            "glob", "file_glob", "list", "file_list");
    private static final Map<String, String> DONE = Map.of("read", "File read successfully",
            "write", "File written successfully", "replace", "Text replaced successfully",
            "search", "File searched successfully", "find", "Files found successfully",
            "grep", "Files searched successfully", "glob", "Files matched successfully",
            "list", "Directory listed successfully");

    private final transient Supplier<Sandbox> opener;
    private final transient ToolConfig config;
    private final transient AioShapes shapes;
    private final long maxDownload;
    private final transient AioWatches watches;
    private transient Sandbox sandbox;
    private transient SandboxTools tools;
    private boolean closed;

    AioFileApi(Supplier<Sandbox> opener, ToolConfig serverConfig, String root, long maxDownload) {
        this.opener = opener;
        // the server's switches (read-only, disabled capabilities, timeouts) with the aio profile's tools
        this.config = serverConfig.toBuilder().profile(ToolProfile.AIO).build();
        this.shapes = new AioShapes(root);
        this.maxDownload = maxDownload;
        this.watches = new AioWatches(this::sandbox, shapes);
    }

    /** The API's sandbox, opened on first use and again after it was closed. */
    synchronized Sandbox sandbox() {
        if (closed) {
            throw new SandboxException(ErrorKind.CLOSED, "the server is shutting down");
        }
        if (sandbox == null) {
            sandbox = opener.get();
            tools = new SandboxTools(sandbox, config);
            LOG.info("AIO file API sandbox {} opened", sandbox.id());
        }
        return sandbox;
    }

    private synchronized SandboxTools tools() {
        sandbox();
        return tools;
    }

    /** Forgets a sandbox that answered CLOSED (it died or hit its lifetime): the next request opens a new one. */
    private synchronized void forget(Sandbox dead) {
        if (sandbox == dead && dead != null) {
            watches.clear();
            sandbox = null;
            tools = null;
            try {
                dead.close();
            } catch (RuntimeException e) {
                LOG.debug("close: {}", e.toString());
            }
        }
    }

    /** Stops every watcher, which ends the SSE streams reading them. */
    void endStreams() {
        watches.clear();
    }

    /** Closes the API's sandbox and refuses further requests. */
    synchronized void shutdown() {
        closed = true;
        watches.clear();
        if (sandbox != null) {
            try {
                sandbox.close();
            } catch (RuntimeException e) {
                LOG.debug("close: {}", e.toString());
            }
            sandbox = null;
        }
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
        String route = route(req);
        try {
            if (TOOLS.containsKey(route)) {
                json(res, 200, jsonEndpoint(route, body(req)));
            } else if (route.equals("upload")) {
                upload(req, res);
            } else if (route.equals("watch") || route.startsWith("watch/")) {
                watches.post(route, body(req), res);
            } else {
                json(res, 404, Map.of("detail", "Not Found"));
            }
        } catch (BadRequest e) {
            json(res, 400, shapes.refused(route, null, "invalid_argument", e.getMessage()));
        } catch (SandboxException e) {
            answerFailure(res, route, e);
        }
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
        String route = route(req);
        try {
            if (route.equals("download")) {
                download(req, res);
            } else if (route.startsWith("watch/") && route.endsWith("/events")) {
                watches.events(route.substring("watch/".length(), route.length() - "/events".length()), req, res);
            } else {
                json(res, 404, Map.of("detail", "Not Found"));
            }
        } catch (SandboxException e) {
            answerFailure(res, route, e);
        }
    }

    @Override
    protected void doDelete(HttpServletRequest req, HttpServletResponse res) throws IOException {
        String route = route(req);
        if (route.startsWith("watch/") && route.indexOf('/', "watch/".length()) < 0) {
            watches.delete(route.substring("watch/".length()), res);
        } else {
            json(res, 404, Map.of("detail", "Not Found"));
        }
    }

    private void answerFailure(HttpServletResponse res, String route, SandboxException e) throws IOException {
        if (e.kind() == ErrorKind.CLOSED) {
            forget(sandbox);
        }
        if (!res.isCommitted()) {
            json(res, status(e.kind()), shapes.failed(route, null, ToolResult.error(e)));
        }
    }

    private static String route(HttpServletRequest req) {
        String info = req.getPathInfo();
        return info == null ? "" : info.replaceAll("^/+|/+$", "");
    }

    /** Runs one JSON endpoint through its aio tool; AIO's extra request fields are applied or refused here. */
    private Map<String, Object> jsonEndpoint(String route, ObjectNode body) {
        String targetField = body.has("file") ? "file" : "path";
        String target = body.path(targetField).isTextual() ? body.get(targetField).asText() : null;
        JsonNode sudo = body.remove("sudo");
        if (sudo != null && sudo.asBoolean(false)) {
            return shapes.refused(route, target, "permission_denied", "sudo is not available: the sandbox runs"
                    + " every operation as its one unprivileged user");
        }
        if (route.equals("write") && !adjustWrite(body)) {
            return shapes.refused(route, target, "invalid_argument", "encoding must be utf-8, base64 or raw");
        }
        for (String field : new String[] {"file", "path"}) {
            if (body.path(field).isTextual()) {
                body.put(field, shapes.in(body.get(field).asText()));
            }
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> args = JSON.convertValue(body, Map.class);
        SandboxTools t = tools();
        ToolResult r = t.call(TOOLS.get(route), args);
        if (!r.success()) {
            if (ErrorKind.CLOSED.code().equals(r.errorType())) {
                forget(t.sandbox());
            }
            return shapes.failed(route, target, r);
        }
        Map<String, Object> data = new LinkedHashMap<>(r.fields());
        if (route.equals("read")) {
            String content = (String) data.get("content");
            data.put("line_count", lines(content));
        }
        return shapes.ok(DONE.get(route), data);
    }

    /** AIO's write fields: {@code leading_newline}/{@code trailing_newline} on text, {@code raw} as Latin-1. */
    private static boolean adjustWrite(ObjectNode body) {
        boolean leading = body.path("leading_newline").asBoolean(false);
        boolean trailing = body.path("trailing_newline").asBoolean(false);
        body.remove("leading_newline");
        body.remove("trailing_newline");
        String encoding = body.path("encoding").asText("utf-8");
        if (!body.path("content").isTextual()) {
            return true; // the tool names the missing or mistyped content
        }
        String content = body.get("content").asText();
        switch (encoding) {
            case "utf-8", "utf8" -> body.put("content", (leading ? "\n" : "") + content + (trailing ? "\n" : ""));
            case "raw" -> {
                byte[] bytes = ((leading ? "\n" : "") + content + (trailing ? "\n" : ""))
                        .getBytes(StandardCharsets.ISO_8859_1);
                body.put("content", Base64.getEncoder().encodeToString(bytes));
                body.put("encoding", "base64");
            }
            case "base64" -> {
                // bytes are the client's: no newlines added
            }
            default -> {
                return false;
            }
        }
        if (encoding.equals("utf8")) {
            body.put("encoding", "utf-8");
        }
        return true;
    }

    static int lines(String content) {
        if (content == null || content.isEmpty()) {
            return 0;
        }
        int n = 0;
        for (int i = 0; i < content.length(); i++) {
            if (content.charAt(i) == '\n') {
                n++;
            }
        }
        return content.endsWith("\n") ? n : n + 1;
    }

    /** {@code multipart/form-data} with {@code file} and {@code path}: streamed into the sandbox (quota applies). */
    private void upload(HttpServletRequest req, HttpServletResponse res) throws IOException {
        Part file;
        Part path;
        try {
            file = req.getPart("file");
            path = req.getPart("path");
        } catch (IllegalStateException | jakarta.servlet.ServletException e) {
            json(res, 413, shapes.refused("upload", null, "too_large", "the upload is too large or not"
                    + " multipart/form-data: " + e.getMessage()));
            return;
        }
        if (file == null || path == null) {
            json(res, 400, shapes.refused("upload", null, "invalid_argument", "multipart fields 'file' and"
                    + " 'path' are required"));
            return;
        }
        String target = new String(path.getInputStream().readNBytes(4096), StandardCharsets.UTF_8).strip();
        Sandbox s = sandbox();
        try (InputStream in = file.getInputStream()) {
            s.files().write(shapes.in(target), in);
        } catch (SandboxException e) {
            json(res, 200, shapes.failed("upload", target, ToolResult.error(e)));
            return;
        }
        FileInfo info = s.files().stat(shapes.in(target));
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("path", info.path());
        data.put("size", info.size());
        json(res, 200, shapes.ok("File uploaded successfully", data));
    }

    /**
     * The file as a stream. With {@code change_policy=abort} it is spooled first (up to the download limit) and
     * checked unchanged, so a change during the transfer can still answer 409 instead of a cut stream; with
     * {@code ignore} it goes to the client directly.
     */
    private void download(HttpServletRequest req, HttpServletResponse res) throws IOException {
        String target = req.getParameter("path");
        if (target == null || target.isBlank()) {
            json(res, 400, shapes.refused("download", null, "invalid_argument", "the query parameter 'path' is"
                    + " required"));
            return;
        }
        String policy = req.getParameter("change_policy") == null ? "ignore" : req.getParameter("change_policy");
        if (!policy.equals("abort") && !policy.equals("ignore")) {
            json(res, 400, shapes.refused("download", target, "invalid_argument", "change_policy must be abort or"
                    + " ignore"));
            return;
        }
        Sandbox s = sandbox();
        String path = shapes.in(target);
        FileInfo info = s.files().stat(path);
        if (info.isDirectory()) {
            throw new SandboxException(ErrorKind.IS_A_DIRECTORY, target + " is a directory");
        }
        if (info.size() > maxDownload) {
            throw new SandboxException(ErrorKind.TOO_LARGE, target + " is " + info.size() + " bytes, more than the"
                    + " download limit of " + maxDownload);
        }
        String name = info.path().contains("/") ? info.path().substring(info.path().lastIndexOf('/') + 1)
                : info.path();
        if (policy.equals("ignore")) {
            // nothing to check afterwards: straight to the client (a failure mid-stream cuts the response)
            downloadHeaders(res, name, -1);
            s.files().readTo(path, new Bounded(res.getOutputStream(), maxDownload));
            return;
        }
        Path spool = Files.createTempFile("sandbox4j-aio-download", ".bin");
        try {
            try (OutputStream out = Files.newOutputStream(spool)) {
                s.files().readToUnchanged(path, new Bounded(out, maxDownload));
            }
            downloadHeaders(res, name, Files.size(spool));
            Files.copy(spool, res.getOutputStream());
        } finally {
            Files.deleteIfExists(spool);
        }
    }

    private static void downloadHeaders(HttpServletResponse res, String name, long length) {
        res.setStatus(200);
        res.setContentType("application/octet-stream");
        if (length >= 0) {
            res.setContentLengthLong(length);
        }
        res.setHeader("Content-Disposition", "attachment; filename=\"" + name.replaceAll("[^A-Za-z0-9._-]", "_")
                + "\"; filename*=UTF-8''" + URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20"));
    }

    static int status(ErrorKind kind) {
        return switch (kind) {
            case NOT_FOUND -> 404;
            case CONFLICT -> 409;
            case PERMISSION_DENIED -> 403;
            case TOO_LARGE -> 413;
            case INVALID_PATH, INVALID_ARGUMENT, IS_A_DIRECTORY, NOT_A_DIRECTORY -> 400;
            case CLOSED, BACKEND_UNAVAILABLE -> 503;
            case TIMEOUT -> 504;
            default -> 500;
        };
    }

    private static ObjectNode body(HttpServletRequest req) throws IOException {
        JsonNode node;
        try (InputStream in = req.getInputStream()) {
            byte[] bytes = in.readAllBytes();
            node = bytes.length == 0 ? JSON.createObjectNode() : JSON.readTree(bytes);
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            throw new BadRequest("the request body is not JSON: " + e.getOriginalMessage());
        }
        if (!(node instanceof ObjectNode object)) {
            throw new BadRequest("the request body must be a JSON object");
        }
        return object;
    }

    static void json(HttpServletResponse res, int status, Object body) throws IOException {
        res.setStatus(status);
        res.setContentType("application/json");
        res.setCharacterEncoding("UTF-8");
        res.getOutputStream().write(JSON.writeValueAsBytes(body));
    }

    /** A request the API cannot read: answered 400 in the failure wrapper. */
    static final class BadRequest extends RuntimeException {
        BadRequest(String message) {
            super(message);
        }
    }

    /** A sink that fails past the limit, so a file that grows during the download cannot fill the host's disk. */
    private static final class Bounded extends OutputStream {
        private final OutputStream out;
        private final long max;
        private long written;

        Bounded(OutputStream out, long max) {
            this.out = out;
            this.max = max;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if ((written += len) > max) {
                throw new SandboxException(ErrorKind.TOO_LARGE, "the file grew past the download limit of " + max);
            }
            out.write(b, off, len);
        }
    }
}
