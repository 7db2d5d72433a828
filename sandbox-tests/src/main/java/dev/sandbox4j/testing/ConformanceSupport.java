package dev.sandbox4j.testing;

import dev.sandbox4j.Feature;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What every contract of the kit shares: the backend's {@link SandboxFixture}, a fresh {@link dev.sandbox4j.Sandbox}
 * as a test-method parameter (closed after the test), feature gating with {@link Requires}, and a leak check after
 * each test.
 */
@ExtendWith(SandboxExtension.class)
public interface ConformanceSupport {
    /** The backend under test. */
    SandboxFixture fixture();

    /** Whether the backend declares a feature (for assertions that differ, not for skipping: use {@link Requires}). */
    default boolean supports(Feature feature) {
        return fixture().features().contains(feature);
    }
}
