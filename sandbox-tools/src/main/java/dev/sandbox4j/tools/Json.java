package dev.sandbox4j.tools;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A minimal JSON reader and writer for tool arguments, results and schemas (maps, lists, strings, numbers, booleans,
 * null), so that sandbox-tools needs no JSON library.
 */
final class Json {
    /** Nesting deeper than this is refused (tool arguments are two or three levels deep). */
    static final int MAX_DEPTH = 64;

    /** Text that is not one JSON value (RFC 8259), with where and why. */
    static final class ParseException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ParseException(String message) {
            super(message, null, false, false);
        }
    }

    private Json() {
    }

    /**
     * Parses one JSON value: objects as ordered maps (a name given twice is refused), arrays as lists, integers as
     * {@link Long} ({@link BigInteger} past its range), other numbers as {@link BigDecimal} (exact), and
     * {@code true}, {@code false}, {@code null}. Whitespace may surround the value; anything else after it is refused.
     */
    static Object parse(String text) {
        Reader r = new Reader(text);
        r.skipWhitespace();
        Object value = r.value(0);
        r.skipWhitespace();
        if (r.pos < text.length()) {
            throw r.error("unexpected " + r.describeHere() + " after the value");
        }
        return value;
    }

    private static final class Reader {
        private final String s;
        private int pos;

        Reader(String s) {
            this.s = s;
        }

        ParseException error(String what) {
            return new ParseException(what + " at character " + (pos + 1));
        }

        String describeHere() {
            if (pos >= s.length()) {
                return "end of text";
            }
            return "'" + new String(Character.toChars(s.codePointAt(pos))) + "'";
        }

        void skipWhitespace() {
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                    return;
                }
                pos++;
            }
        }

        Object value(int depth) {
            if (pos >= s.length()) {
                throw error("unexpected end of text, expected a value");
            }
            char c = s.charAt(pos);
            switch (c) {
                case '{':
                    return object(depth + 1);
                case '[':
                    return array(depth + 1);
                case '"':
                    return string();
                case 't':
                    return literal("true", Boolean.TRUE);
                case 'f':
                    return literal("false", Boolean.FALSE);
                case 'n':
                    return literal("null", null);
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        return number();
                    }
                    throw error("unexpected " + describeHere() + ", expected a value");
            }
        }

        private Object literal(String word, Object value) {
            if (!s.startsWith(word, pos)) {
                throw error("unexpected " + describeHere() + ", expected a value");
            }
            pos += word.length();
            return value;
        }

        private Map<String, Object> object(int depth) {
            if (depth > MAX_DEPTH) {
                throw error("nesting deeper than " + MAX_DEPTH + " levels");
            }
            pos++;
            Map<String, Object> map = new LinkedHashMap<>();
            skipWhitespace();
            if (pos < s.length() && s.charAt(pos) == '}') {
                pos++;
                return map;
            }
            while (true) {
                skipWhitespace();
                if (pos >= s.length() || s.charAt(pos) != '"') {
                    throw error("unexpected " + describeHere() + ", expected a field name in quotes");
                }
                int at = pos;
                String name = string();
                skipWhitespace();
                expect(':');
                skipWhitespace();
                Object v = value(depth);
                if (map.containsKey(name)) {
                    pos = at;
                    throw error("field \"" + name + "\" given twice");
                }
                map.put(name, v);
                skipWhitespace();
                if (pos < s.length() && s.charAt(pos) == ',') {
                    pos++;
                    continue;
                }
                expect('}');
                return map;
            }
        }

        private List<Object> array(int depth) {
            if (depth > MAX_DEPTH) {
                throw error("nesting deeper than " + MAX_DEPTH + " levels");
            }
            pos++;
            List<Object> list = new ArrayList<>();
            skipWhitespace();
            if (pos < s.length() && s.charAt(pos) == ']') {
                pos++;
                return list;
            }
            while (true) {
                skipWhitespace();
                list.add(value(depth));
                skipWhitespace();
                if (pos < s.length() && s.charAt(pos) == ',') {
                    pos++;
                    continue;
                }
                expect(']');
                return list;
            }
        }

        private void expect(char c) {
            if (pos >= s.length() || s.charAt(pos) != c) {
                throw error("unexpected " + describeHere() + ", expected '" + c + "'");
            }
            pos++;
        }

        private String string() {
            pos++;
            StringBuilder sb = new StringBuilder();
            while (true) {
                if (pos >= s.length()) {
                    throw error("unterminated string");
                }
                char c = s.charAt(pos++);
                if (c == '"') {
                    return sb.toString();
                }
                if (c < 0x20) {
                    pos--;
                    throw error("control character U+" + String.format("%04X", (int) c) + " in a string (escape it)");
                }
                if (c != '\\') {
                    sb.append(c);
                    continue;
                }
                if (pos >= s.length()) {
                    throw error("unterminated string");
                }
                char e = s.charAt(pos++);
                switch (e) {
                    case '"' -> sb.append('"');
                    case '\\' -> sb.append('\\');
                    case '/' -> sb.append('/');
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'n' -> sb.append('\n');
                    case 'r' -> sb.append('\r');
                    case 't' -> sb.append('\t');
                    case 'u' -> {
                        if (pos + 4 > s.length()) {
                            throw error("unterminated \\u escape");
                        }
                        int code = 0;
                        for (int i = 0; i < 4; i++) {
                            int d = Character.digit(s.charAt(pos + i), 16);
                            if (d < 0) {
                                throw error("bad \\u escape");
                            }
                            code = code * 16 + d;
                        }
                        pos += 4;
                        sb.append((char) code);
                    }
                    default -> {
                        pos--;
                        throw error("bad escape \\" + e);
                    }
                }
            }
        }

        private Number number() {
            int start = pos;
            if (s.charAt(pos) == '-') {
                pos++;
            }
            if (pos < s.length() && s.charAt(pos) == '0') {
                pos++;
            } else if (!digits()) {
                throw error("bad number");
            }
            boolean integer = true;
            if (pos < s.length() && s.charAt(pos) == '.') {
                pos++;
                integer = false;
                if (!digits()) {
                    throw error("bad number: digits expected after '.'");
                }
            }
            if (pos < s.length() && (s.charAt(pos) == 'e' || s.charAt(pos) == 'E')) {
                pos++;
                integer = false;
                if (pos < s.length() && (s.charAt(pos) == '+' || s.charAt(pos) == '-')) {
                    pos++;
                }
                if (!digits()) {
                    throw error("bad number: digits expected in the exponent");
                }
            }
            String text = s.substring(start, pos);
            if (integer) {
                BigInteger big = new BigInteger(text);
                return big.bitLength() < 64 ? (Number) big.longValue() : big;
            }
            try {
                return new BigDecimal(text);
            } catch (NumberFormatException | ArithmeticException e) {
                pos = start;
                throw error("number out of range");
            }
        }

        private boolean digits() {
            int start = pos;
            while (pos < s.length() && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') {
                pos++;
            }
            return pos > start;
        }
    }

    static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value);
        return sb.toString();
    }

    /** JSON with 2-space indentation, as JavaScript's {@code JSON.stringify(value, null, 2)} writes it. */
    static String writePretty(Object value) {
        StringBuilder sb = new StringBuilder();
        pretty(sb, value, "");
        return sb.toString();
    }

    private static void pretty(StringBuilder sb, Object value, String indent) {
        String inner = indent + "  ";
        if (value instanceof Map<?, ?> map && !map.isEmpty()) {
            sb.append("{\n");
            Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<?, ?> e = it.next();
                sb.append(inner);
                string(sb, String.valueOf(e.getKey()));
                sb.append(": ");
                pretty(sb, e.getValue(), inner);
                sb.append(it.hasNext() ? ",\n" : "\n");
            }
            sb.append(indent).append('}');
        } else if (value instanceof List<?> list && !list.isEmpty()) {
            sb.append("[\n");
            for (int i = 0; i < list.size(); i++) {
                sb.append(inner);
                pretty(sb, list.get(i), inner);
                sb.append(i + 1 < list.size() ? ",\n" : "\n");
            }
            sb.append(indent).append(']');
        } else {
            write(sb, value);
        }
    }

    private static void write(StringBuilder sb, Object value) {
        if (value == null) {
            sb.append("null");
        } else if (value instanceof String s) {
            string(sb, s);
        } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long
                || value instanceof Short || value instanceof Byte) {
            sb.append(value);
        } else if (value instanceof Number n) {
            double d = n.doubleValue();
            sb.append(Double.isFinite(d) ? n.toString() : "null");
        } else if (value instanceof Map<?, ?> map) {
            sb.append('{');
            Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<?, ?> e = it.next();
                string(sb, String.valueOf(e.getKey()));
                sb.append(':');
                write(sb, e.getValue());
                if (it.hasNext()) {
                    sb.append(',');
                }
            }
            sb.append('}');
        } else if (value instanceof List<?> list) {
            sb.append('[');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                write(sb, list.get(i));
            }
            sb.append(']');
        } else {
            string(sb, value.toString());
        }
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029' || Character.isSurrogate(c)
                            && !validSurrogate(s, i)) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    private static boolean validSurrogate(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
        }
        return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }
}
