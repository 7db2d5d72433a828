package dev.sandbox4j.testing;

import dev.sandbox4j.FileWatch;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/** Where {@link WatchContract}'s reads left off in each watch, so a test reads on from there. */
final class WatchCursors {
    private static final Map<FileWatch, Long> CURSORS = Collections.synchronizedMap(new WeakHashMap<>());

    private WatchCursors() {
    }

    static long get(FileWatch w) {
        return CURSORS.getOrDefault(w, 0L);
    }

    static void put(FileWatch w, long cursor) {
        CURSORS.put(w, cursor);
    }
}
