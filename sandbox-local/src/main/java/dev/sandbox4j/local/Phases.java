package dev.sandbox4j.local;

import java.util.ArrayList;
import java.util.List;

/**
 * Timestamps of the steps of open, first command and close, for the measurements in docs/benchmarks.md
 * ({@code FootprintMeasure}). Off unless {@code -Dsandbox4j.local.phases=true}: then one {@code nanoTime} and a list
 * append per mark, for all threads together (a measurement opens one sandbox at a time).
 */
final class Phases {
    static final boolean ON = Boolean.getBoolean("sandbox4j.local.phases");
    private static final List<Object[]> MARKS = new ArrayList<>();

    private Phases() {
    }

    static void mark(String step) {
        if (ON) {
            long now = System.nanoTime();
            synchronized (MARKS) {
                MARKS.add(new Object[] {step, now});
            }
        }
    }

    /** The marks since the last call, as (step, nanoTime) pairs; clears them. */
    static List<Object[]> drain() {
        synchronized (MARKS) {
            List<Object[]> copy = new ArrayList<>(MARKS);
            MARKS.clear();
            return copy;
        }
    }
}
