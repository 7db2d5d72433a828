package dev.sandbox4j.testing;

import java.util.List;
import org.assertj.core.api.Assertions;

/** Fails a test that left processes, mounts, containers or temp directories behind once its sandbox closed. */
public final class LeakCheck {
    private static final long GRACE_MILLIS = 5_000;

    private LeakCheck() {
    }

    /**
     * Asserts the fixture reports no leaks, giving the host up to five seconds to reap what a closed sandbox ended
     * (a killed jail's init is reaped by the host's init, not at once).
     */
    public static void assertNoLeaks(SandboxFixture fixture) throws InterruptedException {
        long deadline = System.nanoTime() + GRACE_MILLIS * 1_000_000;
        List<String> leaks = fixture.leaks();
        while (!leaks.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            leaks = fixture.leaks();
        }
        Assertions.assertThat(leaks).as("resources left behind after the sandbox closed").isEmpty();
    }
}
