package dev.sandbox4j.docker;

import dev.sandbox4j.AttachCredential;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A leased sandbox's life without its host (docs/reattach.md): it outlives the death of the JVM that opened it (a
 * child JVM here) and that JVM's janitor rules, and is attached to from this JVM; when its lease runs out with no
 * host, the container is removed (the engine's auto-remove once the agent ends) and the janitor removes its volume.
 */
class DockerLeaseLifeTest {
    @Test
    void openerJvmDies_sandboxSurvivesTheJanitor_andIsAttached() throws Exception {
        DockerTestSupport.requireDocker();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                LeaseChildMain.class.getName(), Long.toString(Duration.ofMinutes(5).toMillis())))
                .redirectErrorStream(true).start();
        String id = null;
        String secret = null;
        StringBuilder said = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith("LEASED ")) {
                    String[] parts = line.split(" ");
                    id = parts[1];
                    secret = parts[2];
                } else {
                    said.append(line).append('\n');
                }
            }
        }
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(id).as("the child's output: %s", said).isNotNull();
        AttachCredential credential = AttachCredential.parse(secret);
        try (Engine engine = Engine.connect(DockerOptions.defaults(), Duration.ofSeconds(30))) {
            new EngineJanitor(engine).janitor(); // its owner is dead: a plain sandbox would be removed here
            assertThat(engine.control.inspectContainerCmd("sandbox4j-" + id).exec().getState().getRunning())
                    .as("the janitor left the leased sandbox of a dead JVM").isTrue();
        }
        // through the API's entry point, as docs/reattach.md shows
        try (Sandbox s = dev.sandbox4j.Sandboxes.attach("docker", id, credential)) {
            assertThat(s.files().readText("from-child.txt")).isEqualTo("written by the JVM that died\n");
            assertThat(s.shell().run("ps -eo comm= | grep -c '^sleep$' || true").stdout().strip())
                    .as("the dead host's background command was killed with its channel").isEqualTo("0");
            assertThat(s.shell().run("echo attached").stdout()).isEqualTo("attached\n");
        }
        // closed by the attached host: removed, so there is nothing to attach to any more
        String gone = id;
        assertThatThrownBy(() -> DockerTestSupport.PROVIDER.attach(gone, credential,
                SandboxSpec.defaults()))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(ErrorKind.NOT_FOUND));
    }

    @Test
    void leaseRunsOutWithNoHost_containerAndVolumeAreRemoved() throws Exception {
        Sandbox s = DockerTestSupport.open(SandboxSpec.builder().lease(Duration.ofSeconds(2)).build());
        String id = s.id();
        AttachCredential credential = s.detach();
        try (Engine engine = Engine.connect(DockerOptions.defaults(), Duration.ofSeconds(30))) {
            // the agent ends 2 s after the detach; the engine then removes the container (bounded wait, not timed)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            boolean gone = false;
            while (!gone && System.nanoTime() < deadline) {
                gone = engine.control.listContainersCmd().withShowAll(true)
                        .withLabelFilter(java.util.Map.of(Engine.LABEL_ID, id)).exec().isEmpty();
                if (!gone) {
                    Thread.sleep(200);
                }
            }
            assertThat(gone).as("the container of an expired lease is removed").isTrue();
            new EngineJanitor(engine).janitor();
            assertThat(engine.control.listVolumesCmd().withFilter("label", List.of(Engine.LABEL_ID + "=" + id))
                    .exec().getVolumes()).as("its workspace volume, by the janitor").isNullOrEmpty();
        }
        assertThatThrownBy(() -> DockerTestSupport.PROVIDER.attach(id, credential,
                SandboxSpec.defaults()))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(ErrorKind.NOT_FOUND));
    }
}
