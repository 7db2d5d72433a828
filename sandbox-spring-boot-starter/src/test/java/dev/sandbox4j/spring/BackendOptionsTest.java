package dev.sandbox4j.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.docker.DockerOptions;
import dev.sandbox4j.docker.DockerSandboxProvider;
import dev.sandbox4j.spi.SandboxProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code sandbox4j.local.*} and {@code sandbox4j.docker.*} reach the backends the starter opens. */
class BackendOptionsTest {
    final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SandboxAutoConfiguration.class));

    static SandboxProvider provider(SandboxFactory factory, String name) {
        return factory.providers().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void localTempDir_isWhereTheJailsWorkspaceLives() throws Exception {
        Backends.requireOrSkip("local");
        // as root, the jail's uid must traverse it, as it does /tmp (JUnit makes its directories 0700)
        Files.setPosixFilePermissions(tempDir, PosixFilePermissions.fromString("rwxr-xr-x"));
        runner.withPropertyValues("sandbox4j.backend=local", "sandbox4j.local.temp-dir=" + tempDir).run(ctx -> {
            try (Sandbox sandbox = ctx.getBean(SandboxFactory.class).open()) {
                sandbox.files().write("hello.txt", "hi\n");
                assertThat(sandbox.shell().run("cat hello.txt").stdout()).isEqualTo("hi\n");
                assertThat(entries(tempDir)).as("the sandbox's directories under sandbox4j.local.temp-dir")
                        .isPositive();
            }
            // what stays is the JVM's one directory of extracted helper binaries (-bin-), shared by its sandboxes
            assertThat(names(tempDir)).as("closing the sandbox removed its own").allMatch(n -> n.contains("-bin-"));
        });
    }

    @TempDir
    Path tempDir;

    static long entries(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        }
    }

    static java.util.List<String> names(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).toList();
        }
    }

    @Test
    void localBwrap_isTheOneProbedAndReported() {
        runner.withPropertyValues("sandbox4j.backend=local", "sandbox4j.local.bwrap=/nonexistent/bwrap").run(ctx -> {
            SandboxFactory.Status status = ctx.getBean(SandboxFactory.class).status();
            assertThat(status.available()).isFalse();
            assertThat(status.reason()).contains("/nonexistent/bwrap");
        });
    }

    @Test
    void dockerProperties_makeTheProvidersOptions() {
        runner.withPropertyValues("sandbox4j.backend=docker", "sandbox4j.docker.image=registry.example.com/agent:1",
                "sandbox4j.docker.user=2000:2000", "sandbox4j.docker.docker-host=tcp://127.0.0.1:1",
                "sandbox4j.docker.labels.team=ml", "sandbox4j.docker.ping-timeout=1s").run(ctx -> {
                    DockerOptions o = ((DockerSandboxProvider) provider(ctx.getBean(SandboxFactory.class), "docker"))
                            .options();
                    assertThat(o.image()).isEqualTo("registry.example.com/agent:1");
                    assertThat(o.user()).isEqualTo("2000:2000");
                    assertThat(o.dockerHost()).isEqualTo("tcp://127.0.0.1:1");
                    assertThat(o.labels()).isEqualTo(Map.of("team", "ml"));
                    assertThat(o.pingTimeout()).isEqualTo(Duration.ofSeconds(1));
                    assertThat(o.requestTimeout()).isEqualTo(DockerOptions.defaults().requestTimeout());
                    // the health view probes that engine, not the default one
                    assertThat(ctx.getBean(SandboxFactory.class).status().available()).isFalse();
                });
    }

    @Test
    void dockerImage_isTheOneTheEngineIsAskedFor() {
        Backends.requireOrSkip("docker");
        runner.withPropertyValues("sandbox4j.backend=docker", "sandbox4j.docker.image=sandbox4j-test/absent:1")
                .run(ctx -> {
                    SandboxFactory.Status status = ctx.getBean(SandboxFactory.class).status();
                    assertThat(status.available()).isFalse();
                    assertThat(status.reason()).contains("has no image 'sandbox4j-test/absent:1'");
                });
    }

    @Test
    void aBadOption_failsTheStart() {
        runner.withPropertyValues("sandbox4j.docker.user=0").run(ctx ->
                assertThat(ctx).getFailure().hasStackTraceContaining("non-root"));
    }
}
