package dev.sandbox4j.tools;

import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.FileInfo;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * A file's creation and last access times for the {@code filesystem} profile's {@code get_file_info}, which
 * {@link FileInfo} does not carry: read with {@code stat -L -c '%W %X'} inside the sandbox where it can run commands;
 * {@code unknown} where it cannot, or where the file system keeps no birth time.
 */
record Times(String created, String accessed) {
    private static final DateTimeFormatter JS = DateTimeFormatter.ofPattern(
            "EEE MMM dd yyyy HH:mm:ss 'GMT+0000 (Coordinated Universal Time)'", Locale.ROOT).withZone(ZoneOffset.UTC);

    /** A time as JavaScript's {@code Date.toString()} writes it in UTC (the reference's text). */
    static String js(Instant time) {
        return JS.format(time);
    }

    static Times of(SandboxTools t, FileInfo info) {
        try {
            ExecResult r = t.sandbox().shell().run(ExecRequest.argv(List.of("stat", "-L", "-c", "%W %X", "--",
                    info.path().isEmpty() ? "." : info.path())).withTimeout(Duration.ofSeconds(5))
                    .withOutputLimit(200));
            if (r.exitCode() == 0) {
                String[] parts = r.stdout().trim().split(" ");
                if (parts.length == 2) {
                    return new Times(seconds(parts[0]), seconds(parts[1]));
                }
            }
        } catch (RuntimeException e) {
            // no commands in this sandbox, or no stat: the times stay unknown
        }
        return new Times("unknown", "unknown");
    }

    private static String seconds(String field) {
        try {
            long s = Long.parseLong(field);
            return s <= 0 ? "unknown" : js(Instant.ofEpochSecond(s));
        } catch (NumberFormatException e) {
            return "unknown";
        }
    }
}
