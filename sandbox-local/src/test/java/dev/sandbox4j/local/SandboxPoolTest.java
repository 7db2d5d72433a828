package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Mount;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.pool.PoolOptions;
import dev.sandbox4j.pool.SandboxPool;
import dev.sandbox4j.testing.LeakCheck;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The warm pool over real jails: what it hands out, what it closes, how it fails. */
class SandboxPoolTest {
    private static final PoolOptions SMALL = new PoolOptions(2, 4, 1, Duration.ofMinutes(5), Duration.ofSeconds(60));

    @AfterEach
    void nothingLeft() throws InterruptedException {
        LeakCheck.assertNoLeaks(new LocalConformanceTest.LocalFixture());
    }

    private static SandboxPool pool(SandboxSpec spec, PoolOptions options) {
        Jail.assumeAvailable();
        return SandboxPool.of(() -> Jail.open(spec), options);
    }

    /** Waits for a state the pool reaches in the background; the deadline only stops a broken pool hanging CI. */
    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    @Test
    void handsOutOnlySandboxesNobodyUsed() throws InterruptedException {
        try (SandboxPool pool = pool(SandboxSpec.defaults(), SMALL)) {
            await("two warm", () -> pool.stats().warm() == 2);
            Set<String> ids = new HashSet<>();
            for (int i = 0; i < 4; i++) {
                try (Sandbox s = pool.acquire()) {
                    assertThat(ids.add(s.id())).as("a new sandbox each time").isTrue();
                    assertThat(s.files().list("")).as("an empty workspace").isEmpty();
                    ExecResult ps = s.shell().run("cat /proc/[0-9]*/comm; ls -A /tmp");
                    assertThat(ps.stdout()).as("no process or /tmp file of an earlier user")
                            .doesNotContain("sleep", "left");
                    s.files().write("left.txt", "by user " + i);
                    s.shell().run("echo x > /tmp/left; nohup sleep 1000 >/dev/null 2>&1 &");
                }
            }
            Sandbox last = pool.acquire();
            last.close();
            assertThat(last.isOpen()).isFalse();
            assertThatThrownBy(() -> last.shell().run("true")).isInstanceOf(SandboxException.class)
                    .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.CLOSED);
            assertThat(pool.stats().lent()).isZero();
        }
    }

    @Test
    void closingThePoolClosesWarmAndLentSandboxes() {
        SandboxPool pool = pool(SandboxSpec.defaults(), SMALL);
        Sandbox lent = pool.acquire();
        lent.shell().run("nohup sleep 1000 >/dev/null 2>&1 &");
        pool.close();
        pool.close();
        assertThat(lent.isOpen()).isFalse();
        assertThat(pool.stats().warm()).isZero();
        assertThat(pool.stats().opening()).isZero();
        assertThatThrownBy(pool::acquire).isInstanceOf(SandboxException.class)
                .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.CLOSED);
    }

    @Test
    void aFailingOpenIsTheOpensTypedErrorOnAcquireAndRefillStopsUntilAsked() throws InterruptedException {
        SandboxSpec broken = SandboxSpec.builder()
                .mount(Mount.readOnly(Path.of("/nonexistent-sandbox4j-pool-test"), "/input")).build();
        SandboxException direct = null;
        try (Sandbox s = Jail.open(broken)) {
            throw new AssertionError("the broken spec opened: " + s.info());
        } catch (SandboxException e) {
            direct = e;
        }
        try (SandboxPool pool = pool(broken, SMALL)) {
            await("the background opens to fail", () -> pool.stats().failed() >= 1 && pool.stats().opening() == 0);
            long failedBefore = pool.stats().failed();
            SandboxException e = (SandboxException) org.assertj.core.api.Assertions.catchThrowable(pool::acquire);
            assertThat(e.kind()).isEqualTo(direct.kind()).isNotEqualTo(ErrorKind.TIMEOUT);
            assertThat(e.getMessage()).startsWith("the pool could not open a sandbox: ");
            assertThat(pool.stats().failed()).as("acquire retried the open once").isEqualTo(failedBefore + 1);
            assertThat(pool.stats().opening()).as("no retry loop in the background").isZero();
        }
    }

    @Test
    void maxBoundsWhatIsAliveAndAcquireTimesOutTyped() throws InterruptedException {
        PoolOptions one = new PoolOptions(1, 1, 1, Duration.ofMinutes(5), Duration.ofSeconds(2));
        try (SandboxPool pool = pool(SandboxSpec.defaults(), one)) {
            await("one warm", () -> pool.stats().warm() == 1);
            Sandbox first = pool.acquire();
            assertThatThrownBy(pool::acquire).isInstanceOf(SandboxException.class)
                    .extracting(e -> ((SandboxException) e).kind()).isEqualTo(ErrorKind.TIMEOUT);
            assertThat(pool.stats().opening()).as("max 1: no open while one is lent").isZero();
            first.close();
            await("a new one warm", () -> pool.stats().warm() == 1);
            try (Sandbox second = pool.acquire()) {
                assertThat(second.id()).isNotEqualTo(first.id());
                assertThat(second.shell().run("echo ok").stdout()).isEqualTo("ok\n");
            }
            assertThat(pool.stats().opened()).isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void refillUsesAtMostItsThreadsAndIdleSandboxesExpire() throws InterruptedException {
        PoolOptions expiring = new PoolOptions(3, 3, 1, Duration.ofMillis(400), Duration.ofSeconds(60));
        try (SandboxPool pool = pool(SandboxSpec.defaults(), expiring)) {
            await("three warm", () -> pool.stats().warm() == 3);
            long poolThreads = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith("sandbox4j-pool-")).count();
            assertThat(poolThreads).isEqualTo(1);
            await("the idle ones replaced", () -> pool.stats().opened() >= 6);
            assertThat(pool.stats().warm() + pool.stats().opening()).isLessThanOrEqualTo(3);
        }
    }
}
