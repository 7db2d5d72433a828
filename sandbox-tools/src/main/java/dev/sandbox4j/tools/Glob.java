package dev.sandbox4j.tools;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A glob matched against a relative path the way the reference filesystem server's {@code minimatch} (with
 * {@code dot: true}) does: {@code *} and {@code ?} stay within one segment, {@code **} spans segments (zero or more),
 * {@code [...]} and {@code {a,b}} as usual, dot files matched like any other.
 */
final class Glob {
    private final Pattern regex;

    private Glob(Pattern regex) {
        this.regex = regex;
    }

    static Glob of(String glob) {
        return new Glob(Pattern.compile(toRegex(glob)));
    }

    /**
     * The globs of a list; with {@code anyDepth}, one without {@code *} also matches that name at any depth and
     * everything under it (the reference's directory_tree rule).
     */
    static List<Glob> all(List<String> globs, boolean anyDepth) {
        List<Glob> out = new ArrayList<>();
        for (String g : globs) {
            out.add(of(g));
            if (anyDepth && !g.contains("*")) {
                out.add(of("**/" + g));
                out.add(of("**/" + g + "/**"));
            }
        }
        return out;
    }

    static boolean anyMatches(List<Glob> globs, String path) {
        for (Glob g : globs) {
            if (g.matches(path)) {
                return true;
            }
        }
        return false;
    }

    boolean matches(String path) {
        return regex.matcher(path).matches();
    }

    /** A workspace-relative path relative to a base directory (also workspace-relative, "" for the root). */
    static String relative(String base, String path) {
        if (base.isEmpty()) {
            return path;
        }
        return path.startsWith(base + "/") ? path.substring(base.length() + 1) : path;
    }

    static String toRegex(String glob) {
        StringBuilder re = new StringBuilder();
        int n = glob.length();
        int braces = 0;
        for (int i = 0; i < n; i++) {
            char c = glob.charAt(i);
            switch (c) {
                case '*' -> {
                    boolean dbl = i + 1 < n && glob.charAt(i + 1) == '*';
                    boolean segStart = i == 0 || glob.charAt(i - 1) == '/';
                    if (dbl && segStart && (i + 2 == n || glob.charAt(i + 2) == '/')) {
                        if (i + 2 == n) {
                            re.append(".*");
                            i++;
                        } else {
                            re.append("(?:[^/]*(?:/[^/]*)*/)?"); // "**/": zero or more whole segments
                            i += 2;
                        }
                    } else {
                        re.append("[^/]*");
                        while (i + 1 < n && glob.charAt(i + 1) == '*') {
                            i++;
                        }
                    }
                }
                case '?' -> re.append("[^/]");
                case '[' -> {
                    int close = glob.indexOf(']', i + 2);
                    if (close < 0) {
                        re.append("\\[");
                    } else {
                        String body = glob.substring(i + 1, close);
                        if (body.startsWith("!")) {
                            body = "^" + body.substring(1);
                        }
                        re.append('[').append(body.replace("\\", "\\\\").replace("[", "\\[")).append(']');
                        i = close;
                    }
                }
                case '{' -> {
                    braces++;
                    re.append("(?:");
                }
                case '}' -> {
                    if (braces > 0) {
                        braces--;
                        re.append(')');
                    } else {
                        re.append("\\}");
                    }
                }
                case ',' -> re.append(braces > 0 ? "|" : ",");
                default -> re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        while (braces-- > 0) {
            re.append(')');
        }
        return re.toString();
    }
}
