package dev.sandbox4j.tools;

import dev.sandbox4j.Edit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Typed access to a call's arguments; a missing or mistyped one is an {@link ArgException}. */
final class Args {
    /** A bad argument: becomes an {@code invalid_argument} result. */
    static final class ArgException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ArgException(String message) {
            super(message, null, false, false);
        }
    }

    private final String tool;
    private final Map<String, ?> map;

    Args(String tool, Map<String, ?> map) {
        this.tool = tool;
        this.map = map == null ? Map.of() : map;
    }

    /** The arguments as given. */
    Map<String, ?> map() {
        return map;
    }

    /** Checks the values the spec declares: enumerated strings (case-insensitive) and integer bounds. */
    void checkDeclared(ToolSpec spec) {
        for (ToolParam p : spec.params()) {
            if (!p.values().isEmpty()) {
                String v = optString(p.name(), null);
                if (v != null && p.values().stream().noneMatch(v::equalsIgnoreCase)) {
                    throw new ArgException("argument '" + p.name() + "' of " + tool + " must be one of "
                            + String.join(", ", p.values()) + ", got \"" + v + "\"");
                }
            }
            if (p.minimum() != null || p.maximum() != null) {
                Long v = optLong(p.name());
                if (v != null && ((p.minimum() != null && v < p.minimum())
                        || (p.maximum() != null && v > p.maximum()))) {
                    throw new ArgException("argument '" + p.name() + "' of " + tool + " must be between "
                            + p.minimum() + " and " + p.maximum() + ", got " + v);
                }
            }
        }
    }

    private Object raw(String name, boolean required) {
        Object v = map.get(name);
        if (v == null && required) {
            throw new ArgException("missing required argument '" + name + "' for " + tool);
        }
        return v;
    }

    private ArgException wrong(String name, String expected, Object v) {
        return new ArgException("argument '" + name + "' of " + tool + " must be " + expected + ", got "
                + describe(v));
    }

    private static String describe(Object v) {
        if (v instanceof String s) {
            return "the string \"" + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + "\"";
        }
        if (v instanceof List) {
            return "an array";
        }
        if (v instanceof Map) {
            return "an object";
        }
        if (v instanceof Boolean) {
            return "a boolean";
        }
        if (v instanceof Number) {
            return "the number " + v;
        }
        return v.getClass().getSimpleName();
    }

    String string(String name) {
        Object v = raw(name, true);
        if (!(v instanceof String s)) {
            throw wrong(name, "a string", v);
        }
        return s;
    }

    String optString(String name, String fallback) {
        Object v = raw(name, false);
        if (v == null) {
            return fallback;
        }
        if (!(v instanceof String s)) {
            throw wrong(name, "a string", v);
        }
        return s;
    }

    /** A non-blank string. */
    String text(String name) {
        String s = string(name);
        if (s.isBlank()) {
            throw new ArgException("argument '" + name + "' of " + tool + " must not be empty");
        }
        return s;
    }

    Long optLong(String name) {
        Object v = raw(name, false);
        if (v == null) {
            return null;
        }
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
                && Math.abs(n.doubleValue()) < 9e15) {
            return (long) n.doubleValue();
        }
        if (v instanceof String s && s.trim().matches("-?\\d{1,15}")) {
            return Long.parseLong(s.trim());
        }
        throw wrong(name, "an integer", v);
    }

    long optLong(String name, long fallback) {
        Long v = optLong(name);
        return v == null ? fallback : v;
    }

    boolean optBool(String name, boolean fallback) {
        Object v = raw(name, false);
        if (v == null) {
            return fallback;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        if (v instanceof String s && (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false"))) {
            return Boolean.parseBoolean(s);
        }
        throw wrong(name, "a boolean", v);
    }

    List<String> strings(String name, boolean required) {
        Object v = raw(name, required);
        if (v == null) {
            return List.of();
        }
        if (v instanceof String s) {
            return List.of(s);
        }
        if (!(v instanceof List<?> list)) {
            throw wrong(name, "an array of strings", v);
        }
        List<String> out = new ArrayList<>();
        for (Object o : list) {
            if (!(o instanceof String s)) {
                throw wrong(name, "an array of strings", v);
            }
            out.add(s);
        }
        return out;
    }

    List<Long> longs(String name) {
        Object v = raw(name, false);
        if (v == null) {
            return null;
        }
        if (!(v instanceof List<?> list)) {
            throw wrong(name, "an array of integers", v);
        }
        List<Long> out = new ArrayList<>();
        for (Object o : list) {
            if (!(o instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())) {
                throw wrong(name, "an array of integers", v);
            }
            out.add(n.longValue());
        }
        return out;
    }

    Map<String, String> stringMap(String name) {
        Object v = raw(name, false);
        if (v == null) {
            return Map.of();
        }
        if (!(v instanceof Map<?, ?> m)) {
            throw wrong(name, "an object of string values", v);
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
            if (!(e.getValue() instanceof String s)) {
                throw new ArgException("argument '" + name + "' of " + tool + ": the value of "
                        + e.getKey() + " must be a string, got " + (e.getValue() == null ? "null"
                        : describe(e.getValue())));
            }
            out.put(String.valueOf(e.getKey()), s);
        }
        return out;
    }

    /** An array of {@code {key, value}} string objects as an ordered map; absent is empty. */
    Map<String, String> keyValues(String name) {
        Object v = raw(name, false);
        if (v == null) {
            return Map.of();
        }
        if (!(v instanceof List<?> list)) {
            throw wrong(name, "an array of {key, value} objects", v);
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof Map<?, ?> m) || !(m.get("key") instanceof String k)
                    || !(m.get("value") instanceof String val)) {
                throw new ArgException("entry " + (i + 1) + " of argument '" + name + "' of " + tool
                        + " must be an object with string fields 'key' and 'value'");
            }
            out.put(k, val);
        }
        return out;
    }

    List<Edit> edits(String name) {
        Object v = raw(name, true);
        if (!(v instanceof List<?> list)) {
            throw wrong(name, "an array of {oldText, newText} objects", v);
        }
        if (list.isEmpty()) {
            throw new ArgException("argument '" + name + "' of " + tool + " must hold at least one edit");
        }
        List<Edit> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            Object o = list.get(i);
            if (!(o instanceof Map<?, ?> m)) {
                throw wrong(name, "an array of {oldText, newText} objects", v);
            }
            Object oldText = m.get("oldText");
            Object newText = m.get("newText");
            if (!(oldText instanceof String ot) || !(newText instanceof String nt)) {
                throw new ArgException("edit " + (i + 1) + " of " + tool
                        + " needs string fields 'oldText' and 'newText'");
            }
            if (ot.isEmpty()) {
                throw new ArgException("edit " + (i + 1) + " of " + tool + ": 'oldText' must not be empty");
            }
            out.add(new Edit(ot, nt));
        }
        return out;
    }
}
