package dev.sandbox4j.tools;

import dev.sandbox4j.SandboxException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a tool call returns: a flat JSON object for the model, plus images for protocols that carry them.
 *
 * <p>Every result has {@code success}. A failed call has {@code error_type} (an {@link dev.sandbox4j.ErrorKind}
 * code such as {@code not_found}, or {@code invalid_argument} for bad input), {@code message} (what went wrong and
 * what to do) and {@code retryable}. A command that ran and exited non-zero is a successful call: its exit code and
 * summary say how it went.
 */
public final class ToolResult {
    /**
     * An image to show the model alongside the JSON (a thumbnail, from {@code view}).
     *
     * @param base64   the image bytes, base64-encoded
     * @param mimeType such as {@code image/png}
     */
    public record Image(String base64, String mimeType) {
    }

    private final Map<String, Object> fields;
    private final List<Image> images;
    private final String text;

    ToolResult(Map<String, Object> fields, List<Image> images) {
        this(fields, images, null);
    }

    private ToolResult(Map<String, Object> fields, List<Image> images, String text) {
        this.fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
        this.images = List.copyOf(images);
        this.text = text;
    }

    /** This result read by the model as {@code text}, its surface's own rendering (Codex's exec output). */
    ToolResult withText(String text) {
        return new ToolResult(fields, images, Objects.requireNonNull(text, "text"));
    }

    static ToolResult ok(Map<String, Object> fields) {
        return ok(fields, List.of());
    }

    static ToolResult ok(Map<String, Object> fields, List<Image> images) {
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("success", true);
        all.putAll(fields);
        return new ToolResult(all, images);
    }

    /**
     * A failed call: {@code success:false}, {@code error_type} (the kind's code), {@code message}, and
     * {@code retryable} from {@link dev.sandbox4j.ErrorKind#retryable()}: one truth per kind, the one the README's
     * error table states.
     */
    public static ToolResult error(dev.sandbox4j.ErrorKind kind, String message) {
        return error(kind, message, Map.of());
    }

    static ToolResult error(dev.sandbox4j.ErrorKind kind, String message, Map<String, Object> extra) {
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("success", false);
        all.put("error_type", kind.code());
        all.put("message", Objects.requireNonNull(message, "message"));
        all.put("retryable", kind.retryable());
        all.putAll(extra);
        return new ToolResult(all, List.of());
    }

    /**
     * A failed call with a published surface's own error code (execute-code's {@code SANDBOX_SETUP_FAILED}), for a
     * server that answers before any tool runs.
     */
    public static ToolResult failure(String code, String message, boolean retryable) {
        return failure(code, message, retryable, Map.of());
    }

    /** A failed call with a profile's own error code (not an {@link dev.sandbox4j.ErrorKind} code). */
    static ToolResult failure(String code, String message, boolean retryable, Map<String, Object> extra) {
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("success", false);
        all.put("error_type", code);
        all.put("message", Objects.requireNonNull(message, "message"));
        all.put("retryable", retryable);
        all.putAll(extra);
        return new ToolResult(all, List.of());
    }

    /** This result with other fields and the same images and text. */
    ToolResult withFields(Map<String, Object> newFields) {
        return new ToolResult(newFields, images, text);
    }

    /** A failed call from a sandbox exception: its kind's code and retryability, and its message. */
    public static ToolResult error(SandboxException e) {
        return error(e.kind(), e.getMessage());
    }

    public boolean success() {
        return Boolean.TRUE.equals(fields.get("success"));
    }

    /** The {@code error_type} of a failed call, or null. */
    public String errorType() {
        return (String) fields.get("error_type");
    }

    /** The result's fields, in order. */
    public Map<String, Object> fields() {
        return fields;
    }

    /** One field, or null. */
    public Object get(String name) {
        return fields.get(name);
    }

    /** Images to show the model where the protocol carries them (not part of {@link #toJson()}). */
    public List<Image> images() {
        return images;
    }

    /** The fields as a JSON object, the text a model reads. */
    public String toJson() {
        return Json.write(fields);
    }

    /**
     * The text a model reads: the surface's own rendering where its tools answer in text (the codex profile's
     * {@code exec_command} and {@code write_stdin}: wall time, exit code or session id, output), else
     * {@link #toJson()}.
     */
    public String text() {
        return text != null ? text : toJson();
    }

    @Override
    public String toString() {
        return toJson();
    }
}
