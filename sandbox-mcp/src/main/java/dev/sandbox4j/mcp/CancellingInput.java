package dev.sandbox4j.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The server's stdin, line by line (one JSON-RPC message a line), with what the SDK lacks:
 * <ul>
 *   <li>each {@code tools/call} request carries its JSON-RPC id in {@code _meta} ({@link #REQUEST_ID}) so the tool
 *       handler knows which request it serves;
 *   <li>a {@code notifications/cancelled} interrupts the thread serving that request (the tools then kill the
 *       command's process tree) and is not passed on: the MCP Java SDK (2.1.0) implements no cancellation and has no
 *       way to register a server notification handler (its session's handlers are fixed by {@code McpAsyncServer}),
 *       so passed on it would only log {@code No handler registered for notification method:
 *       notifications/cancelled};
 *   <li>a {@code tools/call} of a tool the server does not have goes to {@link #UNKNOWN_TOOL} with the name asked
 *       for in {@code _meta} ({@link #TOOL_NAME}), so the error can name it (the SDK's says
 *       {@code Unknown tool: invalid_tool_name}).
 * </ul>
 * Every other line is passed on; a line that is not JSON is passed on unchanged for the SDK to answer.
 */
final class CancellingInput extends InputStream {
    /** The {@code _meta} key carrying a tool call's JSON-RPC id. */
    static final String REQUEST_ID = "dev.sandbox4j/request-id";
    /** The {@code _meta} key carrying the tool name a call asked for, when it is not one of the server's. */
    static final String TOOL_NAME = "dev.sandbox4j/tool-name";
    /** The hidden tool that answers calls of unknown tools (not listed: see {@link SandboxMcpServer}). */
    static final String UNKNOWN_TOOL = "sandbox4j.unknown_tool";
    private static final int MAX_REMEMBERED = 1_000;

    private final InputStream in;
    private final ObjectMapper json = new ObjectMapper();
    private byte[] line = new byte[0];
    private int position;
    private boolean eof;

    private final Map<String, Thread> running = new HashMap<>();
    private final Set<String> cancelledEarly = new LinkedHashSet<>();

    private final Set<String> tools;

    /** @param tools the names of the server's tools; a call of any other goes to {@link #UNKNOWN_TOOL} */
    CancellingInput(InputStream in, Set<String> tools) {
        this.in = in;
        this.tools = Set.copyOf(tools);
    }

    // ------------------------------------------------------------------ the registry of running calls

    /** Marks the calling thread as serving {@code id}; false if that request was already cancelled. */
    synchronized boolean begin(String id) {
        if (id == null) {
            return true;
        }
        if (cancelledEarly.remove(id)) {
            return false;
        }
        running.put(id, Thread.currentThread());
        return true;
    }

    /** The call ends: no cancel can reach this thread for it any more, and a pending interrupt is cleared. */
    void end(String id) {
        synchronized (this) {
            if (id != null) {
                running.remove(id);
            }
        }
        Thread.interrupted();
    }

    synchronized void cancel(String id) {
        Thread t = running.get(id);
        if (t != null) {
            t.interrupt();
            return;
        }
        cancelledEarly.add(id);
        if (cancelledEarly.size() > MAX_REMEMBERED) {
            cancelledEarly.remove(cancelledEarly.iterator().next());
        }
    }

    // ------------------------------------------------------------------ the stream

    @Override
    public int read() throws IOException {
        if (!fill()) {
            return -1;
        }
        return line[position++] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (!fill()) {
            return -1;
        }
        int n = Math.min(len, line.length - position);
        System.arraycopy(line, position, b, off, n);
        position += n;
        return n;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }

    private boolean fill() throws IOException {
        while (position >= line.length) {
            if (eof) {
                return false;
            }
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            int b;
            while ((b = in.read()) != -1) {
                buf.write(b);
                if (b == '\n') {
                    break;
                }
            }
            if (b == -1) {
                eof = true;
            }
            line = inspect(buf.toByteArray());
            position = 0;
        }
        return true;
    }

    private byte[] inspect(byte[] raw) {
        if (raw.length == 0) {
            return raw;
        }
        try {
            JsonNode message = json.readTree(raw);
            if (message == null || !message.isObject()) {
                return raw;
            }
            String method = message.path("method").asText("");
            if (method.equals("notifications/cancelled") && !message.has("id")) {
                JsonNode id = message.path("params").path("requestId");
                if (!id.isMissingNode() && !id.isNull()) {
                    cancel(id.toString());
                }
                return new byte[0]; // handled here: the SDK has no handler for it
            } else if (method.equals("tools/call") && message.has("id") && message.path("params").isObject()) {
                ObjectNode params = (ObjectNode) message.get("params");
                JsonNode meta = params.get("_meta");
                ObjectNode m = meta instanceof ObjectNode o ? o : params.putObject("_meta");
                m.put(REQUEST_ID, message.get("id").toString());
                JsonNode name = params.get("name");
                if (name != null && name.isTextual() && !tools.contains(name.asText())) {
                    m.put(TOOL_NAME, name.asText());
                    params.put("name", UNKNOWN_TOOL);
                }
                return (json.writeValueAsString(message) + "\n").getBytes(StandardCharsets.UTF_8);
            }
        } catch (IOException | RuntimeException e) {
            // not JSON, or not a shape we touch: the SDK answers it as it is
        }
        return raw;
    }
}
