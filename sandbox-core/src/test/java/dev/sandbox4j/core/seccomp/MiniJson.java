package dev.sandbox4j.core.seccomp;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A strict reader for the JSON the profile writer emits (objects, arrays, strings, integers); fails on the rest. */
final class MiniJson {
    private final String s;
    private int i;

    private MiniJson(String s) {
        this.s = s;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(String json) {
        MiniJson p = new MiniJson(json);
        Object v = p.value();
        p.ws();
        if (p.i != json.length()) {
            throw new IllegalArgumentException("trailing text at " + p.i);
        }
        return (Map<String, Object>) v;
    }

    private void ws() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
    }

    private void expect(char c) {
        ws();
        if (i >= s.length() || s.charAt(i) != c) {
            throw new IllegalArgumentException("expected '" + c + "' at " + i);
        }
        i++;
    }

    private Object value() {
        ws();
        char c = s.charAt(i);
        if (c == '{') {
            Map<String, Object> m = new LinkedHashMap<>();
            i++;
            ws();
            if (s.charAt(i) == '}') {
                i++;
                return m;
            }
            do {
                ws();
                String key = string();
                expect(':');
                if (m.put(key, value()) != null) {
                    throw new IllegalArgumentException("duplicate key " + key);
                }
                ws();
            } while (s.charAt(i++) == ',');
            if (s.charAt(i - 1) != '}') {
                throw new IllegalArgumentException("expected '}' at " + (i - 1));
            }
            return m;
        }
        if (c == '[') {
            List<Object> l = new ArrayList<>();
            i++;
            ws();
            if (s.charAt(i) == ']') {
                i++;
                return l;
            }
            do {
                l.add(value());
                ws();
            } while (s.charAt(i++) == ',');
            if (s.charAt(i - 1) != ']') {
                throw new IllegalArgumentException("expected ']' at " + (i - 1));
            }
            return l;
        }
        if (c == '"') {
            return string();
        }
        int start = i;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '-')) {
            i++;
        }
        if (start == i) {
            throw new IllegalArgumentException("unexpected '" + c + "' at " + i);
        }
        return Long.parseLong(s.substring(start, i));
    }

    private String string() {
        if (s.charAt(i) != '"') {
            throw new IllegalArgumentException("expected a string at " + i);
        }
        int end = s.indexOf('"', i + 1);
        String v = s.substring(i + 1, end);
        if (v.indexOf('\\') >= 0) {
            throw new IllegalArgumentException("escapes are not expected in the profile");
        }
        i = end + 1;
        return v;
    }
}
