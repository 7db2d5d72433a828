package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Glob matching on workspace-relative paths, the same on every backend: {@code *} within a segment, {@code **}
 * across segments, {@code ?} one character, {@code [abc]} a class ({@code [a-z]} ranges, {@code [!a]} or
 * {@code [^a]} negated), {@code {a,b}} alternatives (nested too). A glob without a slash matches the last segment
 * (the name), at any depth.
 *
 * <p>Globs come from models and users, so matching takes no regular expression: a glob turned into a
 * {@link java.util.regex} pattern backtracks ({@code *a*a*a*a*a*a*b} on a long name is exponential in the stars).
 * Each glob is expanded into its brace alternatives (at most {@value #MAX_ALTERNATIVES}, else
 * {@link ErrorKind#INVALID_ARGUMENT}) and each alternative is matched by a set-of-states simulation, in time
 * proportional to (path length) x (glob length), whatever the glob.
 */
public final class Globs {
    static final int MAX_ALTERNATIVES = 1024;

    private Globs() {
    }

    /**
     * A predicate on relative paths ({@code src/app.py}).
     *
     * @throws SandboxException {@link ErrorKind#INVALID_ARGUMENT} for an empty or malformed glob
     */
    public static Predicate<String> compile(String glob) {
        if (glob == null || glob.isEmpty()) {
            throw Arguments.invalid("the glob must not be empty");
        }
        List<String> alternatives = new ArrayList<>();
        expand(glob, glob, alternatives);
        List<Token[]> compiled = new ArrayList<>();
        for (String alternative : alternatives) {
            compiled.add(tokens(glob, alternative));
        }
        boolean byName = glob.indexOf('/') < 0;
        return path -> {
            String subject = byName ? path.substring(path.lastIndexOf('/') + 1) : path;
            for (Token[] t : compiled) {
                if (matches(t, subject)) {
                    return true;
                }
            }
            return false;
        };
    }

    /** A predicate matching a path when any of the globs does; never matches for an empty list. */
    public static Predicate<String> any(List<String> globs) {
        List<Predicate<String>> compiled = globs.stream().map(Globs::compile).collect(Collectors.toList());
        return path -> compiled.stream().anyMatch(p -> p.test(path));
    }

    // ---------------------------------------------------------------- braces

    /** Adds the brace-free expansions of {@code glob} to {@code out}; an unclosed brace is closed at the end. */
    private static void expand(String original, String glob, List<String> out) {
        int open = -1;
        for (int i = 0; i < glob.length(); i = next(glob, i)) {
            if (glob.charAt(i) == '{') {
                open = i;
                break;
            }
        }
        if (open < 0) {
            if (out.size() >= MAX_ALTERNATIVES) {
                throw Arguments.invalid("invalid glob '" + original + "': it expands to more than "
                        + MAX_ALTERNATIVES + " alternatives");
            }
            out.add(glob);
            return;
        }
        List<String> options = new ArrayList<>();
        int depth = 0;
        int from = open + 1;
        int end = glob.length();
        for (int i = open + 1; i < glob.length(); i = next(glob, i)) {
            char c = glob.charAt(i);
            if (c == '{') {
                depth++;
            } else if (c == '}' && depth > 0) {
                depth--;
            } else if (c == '}') {
                end = i;
                break;
            } else if (c == ',' && depth == 0) {
                options.add(glob.substring(from, i));
                from = i + 1;
            }
        }
        options.add(glob.substring(from, Math.min(end, glob.length())));
        String head = glob.substring(0, open);
        String tail = end < glob.length() ? glob.substring(end + 1) : "";
        for (String option : options) {
            expand(original, head + option + tail, out);
        }
    }

    /** Where the scan for braces goes on after index {@code i}: past an escaped character or a whole class. */
    private static int next(String glob, int i) {
        char c = glob.charAt(i);
        if (c == '\\') {
            return i + 2;
        }
        if (c == '[') {
            int close = classEnd(glob, i);
            return close < 0 ? i + 1 : close + 1;
        }
        return i + 1;
    }

    /** Index of the {@code ]} closing the class opened at {@code open}, or -1 (then {@code [} is literal). */
    private static int classEnd(String glob, int open) {
        return glob.indexOf(']', open + 1);
    }

    // ---------------------------------------------------------------- tokens and matching

    private enum Kind { LITERAL, ONE, STAR, ANY_DEPTH, DIRS, CLASS }

    /** One step of a glob: a literal char, {@code ?}, {@code *}, {@code **}, {@code **}{@code /}, or a class. */
    private static final class Token {
        final Kind kind;
        final char literal;
        final boolean negated;
        final String ranges; // pairs: from, to

        Token(Kind kind, char literal, boolean negated, String ranges) {
            this.kind = kind;
            this.literal = literal;
            this.negated = negated;
            this.ranges = ranges;
        }

        /** Whether this token consumes {@code c} and moves on. */
        boolean accepts(char c) {
            switch (kind) {
                case LITERAL:
                    return c == literal;
                case ONE:
                    return c != '/';
                case CLASS:
                    boolean in = false;
                    for (int i = 0; i < ranges.length(); i += 2) {
                        if (c >= ranges.charAt(i) && c <= ranges.charAt(i + 1)) {
                            in = true;
                            break;
                        }
                    }
                    return in != negated;
                default:
                    return false;
            }
        }

        /** Whether this token may also consume {@code c} and stay (the stars). */
        boolean loops(char c) {
            return kind == Kind.ANY_DEPTH || (kind == Kind.STAR && c != '/');
        }

        /** Whether the token may match nothing. */
        boolean optional() {
            return kind == Kind.STAR || kind == Kind.ANY_DEPTH || kind == Kind.DIRS;
        }
    }

    private static Token[] tokens(String original, String glob) {
        List<Token> out = new ArrayList<>();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            switch (c) {
                case '*' -> {
                    if (i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                        i++;
                        if (i + 1 < glob.length() && glob.charAt(i + 1) == '/') {
                            i++;
                            out.add(new Token(Kind.DIRS, '\0', false, "")); // "**/": zero or more directories
                        } else {
                            out.add(new Token(Kind.ANY_DEPTH, '\0', false, ""));
                        }
                    } else {
                        out.add(new Token(Kind.STAR, '\0', false, ""));
                    }
                }
                case '?' -> out.add(new Token(Kind.ONE, '\0', false, ""));
                case '[' -> {
                    int close = classEnd(glob, i);
                    if (close < 0) {
                        out.add(new Token(Kind.LITERAL, '[', false, ""));
                    } else {
                        out.add(charClass(original, glob.substring(i + 1, close)));
                        i = close;
                    }
                }
                case '\\' -> out.add(new Token(Kind.LITERAL, i + 1 < glob.length() ? glob.charAt(++i) : '\\',
                        false, ""));
                default -> out.add(new Token(Kind.LITERAL, c, false, ""));
            }
        }
        return out.toArray(new Token[0]);
    }

    private static Token charClass(String original, String body) {
        boolean negated = !body.isEmpty() && (body.charAt(0) == '!' || body.charAt(0) == '^');
        String items = negated ? body.substring(1) : body;
        if (items.isEmpty()) {
            throw Arguments.invalid("invalid glob '" + original + "': empty character class []");
        }
        StringBuilder ranges = new StringBuilder();
        for (int i = 0; i < items.length(); i++) {
            char from = items.charAt(i);
            char to = from;
            if (i + 2 < items.length() && items.charAt(i + 1) == '-') {
                to = items.charAt(i + 2);
                i += 2;
                if (to < from) {
                    throw Arguments.invalid("invalid glob '" + original + "': range " + from + "-" + to
                            + " is out of order");
                }
            }
            ranges.append(from).append(to);
        }
        return new Token(Kind.CLASS, '\0', negated, ranges.toString());
    }

    /**
     * Set-of-states simulation: O(path x glob) steps, no backtracking. {@code states[s]}: at token s, nothing of it
     * consumed yet; {@code inside[s]} (for {@code **}{@code /} only): some of it consumed, so it must still end with
     * a slash.
     */
    static boolean matches(Token[] tokens, String path) {
        int n = tokens.length;
        boolean[] states = new boolean[n + 1];
        boolean[] inside = new boolean[n + 1];
        boolean[] next = new boolean[n + 1];
        boolean[] nextInside = new boolean[n + 1];
        states[0] = true;
        close(tokens, states);
        for (int p = 0; p < path.length(); p++) {
            char c = path.charAt(p);
            java.util.Arrays.fill(next, false);
            java.util.Arrays.fill(nextInside, false);
            boolean any = false;
            for (int s = 0; s < n; s++) {
                Token t = tokens[s];
                if (t.kind == Kind.DIRS) {
                    if (states[s] || inside[s]) {
                        nextInside[s] = true; // ".*" of "(.*/)?" may hold slashes
                        any = true;
                        if (c == '/') {
                            next[s + 1] = true;
                        }
                    }
                    continue;
                }
                if (!states[s]) {
                    continue;
                }
                if (t.loops(c)) {
                    next[s] = true;
                    any = true;
                }
                if (t.accepts(c)) {
                    next[s + 1] = true;
                    any = true;
                }
            }
            if (!any) {
                return false;
            }
            close(tokens, next);
            boolean[] swap = states;
            states = next;
            next = swap;
            swap = inside;
            inside = nextInside;
            nextInside = swap;
        }
        return states[n];
    }

    /** Adds the states reachable by skipping optional tokens (stars matching nothing). */
    private static void close(Token[] tokens, boolean[] states) {
        for (int s = 0; s < tokens.length; s++) {
            if (states[s] && tokens[s].optional()) {
                states[s + 1] = true;
            }
        }
    }
}
