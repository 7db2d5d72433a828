package dev.sandbox4j.pool;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link SandboxPool} keeps sandboxes warm.
 *
 * @param min            sandboxes kept open and unused, ready for {@link SandboxPool#acquire()}
 * @param max            sandboxes alive at once: warm, handed out and being opened together; an acquire past it waits
 * @param refillThreads  threads that open sandboxes in the background (each open takes one for its whole duration)
 * @param idleExpiry     a warm sandbox unused this long is closed and replaced by a new one, so that what is handed
 *                       out has used at most this much of its {@link dev.sandbox4j.SandboxSpec#lifetime() lifetime}
 * @param acquireTimeout how long {@link SandboxPool#acquire()} waits for a sandbox before failing with
 *                       {@link dev.sandbox4j.ErrorKind#TIMEOUT}
 */
public record PoolOptions(int min, int max, int refillThreads, Duration idleExpiry, Duration acquireTimeout) {
    /** 2 warm, at most 16 alive, 2 refill threads, a 5-minute idle expiry, 60 seconds to acquire. */
    public static final PoolOptions DEFAULTS = new PoolOptions(2, 16, 2, Duration.ofMinutes(5),
            Duration.ofSeconds(60));

    public PoolOptions {
        Objects.requireNonNull(idleExpiry, "idleExpiry");
        Objects.requireNonNull(acquireTimeout, "acquireTimeout");
        if (min < 0 || max < 1 || min > max) {
            throw new IllegalArgumentException("need 0 <= min <= max and max >= 1, got min " + min + ", max " + max);
        }
        if (refillThreads < 1 || refillThreads > 64) {
            throw new IllegalArgumentException("refillThreads must be 1..64, got " + refillThreads);
        }
        if (idleExpiry.isNegative() || idleExpiry.isZero() || acquireTimeout.isNegative()) {
            throw new IllegalArgumentException("idleExpiry must be positive and acquireTimeout not negative");
        }
    }

    /** These options with {@code min} warm; {@code max} is raised to {@code min} if below it. */
    public PoolOptions withMin(int min) {
        return new PoolOptions(min, Math.max(max, min), refillThreads, idleExpiry, acquireTimeout);
    }

    /** These options with {@code max} alive; {@code min} is lowered to {@code max} if above it. */
    public PoolOptions withMax(int max) {
        return new PoolOptions(Math.min(min, max), max, refillThreads, idleExpiry, acquireTimeout);
    }

    public PoolOptions withRefillThreads(int refillThreads) {
        return new PoolOptions(min, max, refillThreads, idleExpiry, acquireTimeout);
    }

    public PoolOptions withIdleExpiry(Duration idleExpiry) {
        return new PoolOptions(min, max, refillThreads, idleExpiry, acquireTimeout);
    }

    public PoolOptions withAcquireTimeout(Duration acquireTimeout) {
        return new PoolOptions(min, max, refillThreads, idleExpiry, acquireTimeout);
    }
}
