package dev.sandbox4j.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.Sandbox;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The agent's binaries come from one read-only volume per engine and version (docs/docker.md#volumes). */
class DockerBinariesVolumeTest {

    private static List<String> binaryVolumes(Engine e) {
        var vols = e.control.listVolumesCmd().withFilter("label", List.of("dev.sandbox4j.bin")).exec().getVolumes();
        return vols == null ? List.of() : vols.stream().map(v -> v.getName()).toList();
    }

    @Test
    void aRemovedVolumeIsMadeAgain_andAnEmptyOneIsFilled() {
        DockerTestSupport.requireDocker();
        try (Sandbox s = DockerTestSupport.open()) {
            assertThat(s.shell().run("echo one").stdout()).isEqualTo("one\n");
        }
        try (Engine e = Engine.connect(DockerOptions.defaults(), Duration.ofSeconds(10))) {
            List<String> before = binaryVolumes(e);
            assertThat(before).isNotEmpty();
            // what `docker volume prune` does while no sandbox runs; this JVM still trusts the volume it made, so
            // the open mounts a missing volume (the engine makes it empty and unlabelled), the agent cannot start,
            // and the open must notice that, make the volume again and open once more
            before.forEach(e::removeVolumeQuietly);
            assertThat(binaryVolumes(e)).isEmpty();
            try (Sandbox s = DockerTestSupport.open()) {
                assertThat(s.shell().run("echo two").stdout()).isEqualTo("two\n");
            }
            List<String> remade = binaryVolumes(e);
            assertThat(remade).hasSize(1);
            assertThat(e.control.listVolumesCmd().exec().getVolumes()).extracting(v -> v.getName())
                    .containsOnlyOnce(remade.get(0));
            // an empty volume of that name (a filler that died before it wrote anything) is filled, not trusted
            remade.forEach(e::removeVolumeQuietly);
            e.control.createVolumeCmd().withName(remade.get(0))
                    .withLabels(java.util.Map.of("dev.sandbox4j.bin", remade.get(0).substring("sandbox4j-bin-".length())))
                    .exec();
            Engine.forgetBinariesForTests();
            try (Sandbox s = DockerTestSupport.open()) {
                assertThat(s.shell().run("echo three").stdout()).isEqualTo("three\n");
                assertThat(s.shell().run("ls /var/sandbox4j/ready/").stdout()).contains("sbx-agent", "sbx-reaper");
            }
        }
    }
}
