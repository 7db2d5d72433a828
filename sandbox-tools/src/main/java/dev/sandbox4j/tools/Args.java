package dev.sandbox4j.tools;

import dev.sandbox4j.Edit;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Typed access to a call's arguments; a missing or mistyped one is an {@link ArgException}.
 *
 * <p>One rule for every tool, profile and adapter, with no coercion between JSON types:
 * <ul>
 *   <li>{@code string}: a JSON string only ({@code 5} is not {@code "5"});
 *   <li>{@code integer}: a JSON number whose fractional part is zero ({@code 5}, {@code 5.0}, {@code 5e0}: JSON
 *       Schema's integer) within the 64-bit range and the declared bounds; {@code "5"}, {@code 1.5}, {@code true}
 *       are refused;
 *   <li>{@code boolean}: {@code true} or {@code false} only ({@code "true"}, {@code 1} are refused);
 *   <li>arrays: a JSON array whose items all have the item type ({@code "a.txt"} is not {@code ["a.txt"]});
 *   <li>objects: a JSON object whose values have the value type;
 *   <li>enumerated strings: one of the declared values, exactly (case included);
 *   <li>{@code null} is the same as leaving the argument out (its default applies; a required one is missing).
 * </ul>
 * A refusal names the argument, the tool, the expected type and what came.
 */
final class Args {
    /** A bad argument: becomes an {@code invalid_argument} result. */
    static final class ArgException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ArgException(String message) {
            super(message, null, false, false);
        }

        /** This refusal with a hint appended to its message. */
        ArgException hint(String hint) {
            return hint.isEmpty() ? this : new ArgException(getMessage() + hint);
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

    /**
     * Checks every argument given against the spec before the tool runs: its JSON type (whether or not the tool
     * reads it), enumerated values and integer bounds.
     */
    void checkDeclared(ToolSpec spec) {
        for (ToolParam p : spec.params()) {
            Object v = map.get(p.name());
            if (v == null) {
                continue;
            }
            checkType(p, v);
            if (!p.values().isEmpty() && p.values().stream().noneMatch(v::equals)) {
                throw new ArgException("argument '" + p.name() + "' of " + tool + " must be one of "
                        + String.join(", ", p.values()) + ", got " + describe(v));
            }
            if ((p.minimum() != null || p.maximum() != null) && v instanceof List<?> items) {
                if ((p.minimum() != null && items.size() < p.minimum())
                        || (p.maximum() != null && items.size() > p.maximum())) {
                    throw new ArgException("argument '" + p.name() + "' of " + tool + " must have "
                            + (p.maximum() == null ? "at least " + p.minimum() : "between " + p.minimum() + " and "
                            + p.maximum()) + " items, got " + items.size());
                }
            } else if (p.minimum() != null || p.maximum() != null) {
                long n = integer(p.name(), v);
                if ((p.minimum() != null && n < p.minimum()) || (p.maximum() != null && n > p.maximum())) {
                    throw new ArgException("argument '" + p.name() + "' of " + tool + " must be between "
                            + p.minimum() + " and " + p.maximum() + ", got " + n);
                }
            }
        }
    }

    private void checkType(ToolParam p, Object v) {
        String name = p.name();
        switch (p.type()) {
            case STRING -> {
                if (!(v instanceof String)) {
                    throw wrong(name, "a string", v);
                }
            }
            case INTEGER -> integer(name, v);
            case NUMBER -> number(name, v);
            case BOOLEAN -> {
                if (!(v instanceof Boolean)) {
                    throw wrong(name, "a boolean (true or false)", v);
                }
            }
            case STRING_ARRAY -> strings(name, false);
            case INTEGER_ARRAY -> longs(name);
            case STRING_MAP -> stringMap(name);
            case EDIT_ARRAY -> edits(name);
            case KEY_VALUE_ARRAY -> keyValues(name);
            default -> throw new IllegalStateException(p.type().name());
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

    /** What came, for a message: its JSON type and, for scalars, its value. */
    static String describe(Object v) {
        if (v == null) {
            return "null";
        }
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
            return "the boolean " + v;
        }
        if (v instanceof Number n) {
            BigDecimal d = decimal(n);
            if (d == null) {
                return "the number " + n;
            }
            d = d.stripTrailingZeros();
            boolean plain = d.precision() - d.scale() <= 21 && d.scale() <= 20;
            return "the number " + (plain ? d.toPlainString() : d.toString());
        }
        return v.getClass().getSimpleName();
    }

    /** The exact value of a number, or null for NaN and the infinities. */
    private static BigDecimal decimal(Number n) {
        if (n instanceof BigDecimal d) {
            return d;
        }
        if (n instanceof BigInteger i) {
            return new BigDecimal(i);
        }
        if (n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte) {
            return BigDecimal.valueOf(n.longValue());
        }
        if (n instanceof Double || n instanceof Float) {
            double d = n.doubleValue();
            return Double.isFinite(d) ? BigDecimal.valueOf(d) : null;
        }
        try {
            return new BigDecimal(n.toString());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static final BigDecimal MIN_LONG = BigDecimal.valueOf(Long.MIN_VALUE);
    private static final BigDecimal MAX_LONG = BigDecimal.valueOf(Long.MAX_VALUE);

    /** An integer argument: a number with no fractional part, within the 64-bit range. */
    private long integer(String name, Object v) {
        BigDecimal d = v instanceof Number n ? decimal(n) : null;
        boolean infinite = (v instanceof Double || v instanceof Float) && Double.isInfinite(((Number) v).doubleValue());
        if (!infinite && (d == null || d.signum() != 0 && d.stripTrailingZeros().scale() > 0)) {
            throw wrong(name, "an integer", v);
        }
        if (infinite || d.compareTo(MIN_LONG) < 0 || d.compareTo(MAX_LONG) > 0) {
            throw new ArgException("argument '" + name + "' of " + tool + " must be an integer between "
                    + Long.MIN_VALUE + " and " + Long.MAX_VALUE + ", got " + describe(v));
        }
        return d.longValueExact();
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

    /** A JSON number (finite), for parameters a surface declares as {@code number}. */
    private double number(String name, Object v) {
        if (!(v instanceof Number n) || v instanceof Boolean) {
            throw wrong(name, "a number", v);
        }
        double d = n.doubleValue();
        if (!Double.isFinite(d)) {
            throw wrong(name, "a finite number", v);
        }
        return d;
    }

    /** An optional {@code number} argument, or null. */
    Double optDouble(String name) {
        Object v = map.get(name);
        return v == null ? null : number(name, v);
    }

    Long optLong(String name) {
        Object v = raw(name, false);
        return v == null ? null : integer(name, v);
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
        if (!(v instanceof Boolean b)) {
            throw wrong(name, "a boolean (true or false)", v);
        }
        return b;
    }

    List<String> strings(String name, boolean required) {
        Object v = raw(name, required);
        if (v == null) {
            return List.of();
        }
        if (!(v instanceof List<?> list)) {
            throw wrong(name, "an array of strings", v)
                    .hint(v instanceof String s ? "; for one, pass [\"" + (s.length() > 40 ? s.substring(0, 40)
                            + "..." : s) + "\"]" : "");
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof String s)) {
                throw new ArgException("argument '" + name + "' of " + tool + " must be an array of strings, got "
                        + describe(list.get(i)) + " as item " + (i + 1));
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
        for (int i = 0; i < list.size(); i++) {
            Object o = list.get(i);
            try {
                out.add(integer(name, o));
            } catch (ArgException e) {
                throw new ArgException("argument '" + name + "' of " + tool + " must be an array of integers, got "
                        + describe(o) + " as item " + (i + 1));
            }
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
                    || !(m.get("value") instanceof String val) || m.size() != 2) {
                throw new ArgException("entry " + (i + 1) + " of argument '" + name + "' of " + tool
                        + " must be an object with string fields 'key' and 'value' and no others, got "
                        + describe(list.get(i)));
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
