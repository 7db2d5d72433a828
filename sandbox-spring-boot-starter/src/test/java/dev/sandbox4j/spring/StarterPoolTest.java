package dev.sandbox4j.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.pool.SandboxPool;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code sandbox4j.pool.*}: the factory's open() from a warm pool of real local jails, closed with the context. */
class StarterPoolTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SandboxAutoConfiguration.class));

    @Test
    void offByDefault() {
        runner.withPropertyValues("sandbox4j.backend=memory").run(ctx ->
                assertThat(ctx.getBean(SandboxFactory.class).poolStats()).isEmpty());
    }

    @Test
    void openTakesWarmUnusedSandboxesAndTheContextClosesThePool() throws InterruptedException {
        Backends.requireOrSkip("local");
        Sandbox[] kept = new Sandbox[1];
        runner.withPropertyValues("sandbox4j.backend=local", "sandbox4j.limits.best-effort=true",
                "sandbox4j.pool.enabled=true", "sandbox4j.pool.min=1", "sandbox4j.pool.max=3").run(ctx -> {
            SandboxFactory factory = ctx.getBean(SandboxFactory.class);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (factory.poolStats().orElseThrow().warm() < 1) {
                assertThat(System.nanoTime()).as("the pool warms one sandbox").isLessThan(deadline);
                Thread.sleep(20);
            }
            String firstId;
            try (Sandbox first = factory.open()) {
                firstId = first.id();
                first.files().write("mine.txt", "x");
                assertThat(first.shell().run("echo ok").stdout()).isEqualTo("ok\n");
            }
            kept[0] = factory.open();
            assertThat(kept[0].id()).isNotEqualTo(firstId);
            assertThat(kept[0].files().list("")).as("never handed out used").isEmpty();
            SandboxPool.Stats stats = factory.poolStats().orElseThrow();
            assertThat(stats.lent()).isEqualTo(1);
            assertThat(factory.openSandboxes()).isEqualTo(1);
        });
        assertThat(kept[0].isOpen()).as("the context's close closed the pool and what it lent").isFalse();
    }
}
