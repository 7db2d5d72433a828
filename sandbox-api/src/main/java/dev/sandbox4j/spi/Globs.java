package dev.sandbox4j.spi;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/**
 * Glob matching on workspace-relative paths, the same on every backend: {@code *} within a segment, {@code **}
 * across segments, {@code ?} one character, {@code [abc]} a class, {@code {a,b}} alternatives. A glob without a
 * slash matches the last segment (the name), at any depth.
 */
public final class Globs {
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
        Pattern pattern;
        try {
            pattern = Pattern.compile(toRegex(glob), Pattern.DOTALL);
        } catch (PatternSyntaxException e) {
            throw Arguments.invalid("invalid glob '" + glob + "': " + e.getDescription());
        }
        if (glob.indexOf('/') < 0) {
            return path -> pattern.matcher(path.substring(path.lastIndexOf('/') + 1)).matches();
        }
        return path -> pattern.matcher(path).matches();
    }

    /** A predicate matching a path when any of the globs does; never matches for an empty list. */
    public static Predicate<String> any(List<String> globs) {
        List<Predicate<String>> compiled = globs.stream().map(Globs::compile).collect(Collectors.toList());
        return path -> compiled.stream().anyMatch(p -> p.test(path));
    }

    static String toRegex(String glob) {
        StringBuilder re = new StringBuilder();
        int braces = 0;
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            switch (c) {
                case '*' -> {
                    if (i + 1 < glob.length() && glob.charAt(i + 1) == '*') {
                        i++;
                        if (i + 1 < glob.length() && glob.charAt(i + 1) == '/') {
                            i++;
                            re.append("(?:.*/)?"); // "**/" matches zero or more directories
                        } else {
                            re.append(".*");
                        }
                    } else {
                        re.append("[^/]*");
                    }
                }
                case '?' -> re.append("[^/]");
                case '[' -> {
                    int close = glob.indexOf(']', i + 1);
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
                case '\\' -> {
                    if (i + 1 < glob.length()) {
                        re.append(Pattern.quote(String.valueOf(glob.charAt(++i))));
                    } else {
                        re.append("\\\\");
                    }
                }
                default -> re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        while (braces-- > 0) {
            re.append(')');
        }
        return re.toString();
    }
}
