package dev.sandbox4j.docker;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.util.Optional;

/**
 * Skips Docker tests when the engine or the image is missing, and fails them instead when env
 * {@code SANDBOX4J_REQUIRE} contains {@code docker}.
 */
final class DockerTestSupport {
    static final DockerSandboxProvider PROVIDER = new DockerSandboxProvider();
    private static volatile Optional<String> reason;

    private DockerTestSupport() {
    }

    static synchronized void requireDocker() {
        if (reason == null) {
            reason = PROVIDER.unavailableReason();
        }
        dev.sandbox4j.testing.Required.orSkip("docker", reason);
    }

    /** Containers and volumes labelled as sandbox4j's and owned by this JVM, one line each. */
    static java.util.List<String> ownedResources() {
        return ownedResources(DockerOptions.defaults());
    }

    /** Containers and volumes labelled as sandbox4j's and owned by this JVM on the engine {@code options} reach. */
    static java.util.List<String> ownedResources(DockerOptions options) {
        java.util.List<String> out = new java.util.ArrayList<>();
        try (Engine e = Engine.connect(options, java.time.Duration.ofSeconds(10))) {
            for (var c : e.control.listContainersCmd().withShowAll(true)
                    .withLabelFilter(java.util.Map.of(Engine.LABEL_OWNER, Engine.OWNER)).exec()) {
                out.add("container " + c.getId().substring(0, 12) + " " + java.util.Arrays.toString(c.getNames()));
            }
            for (var c : e.control.listContainersCmd().withShowAll(true)
                    .withLabelFilter(java.util.Map.of(ContainerLease.LABEL_OPENER, Engine.OWNER)).exec()) {
                out.add("leased container " + c.getId().substring(0, 12) + " " + java.util.Arrays.toString(c.getNames()));
            }
            var leasedVols = e.control.listVolumesCmd().withFilter("label", java.util.List.of(ContainerLease.LABEL_OPENER
                    + "=" + Engine.OWNER)).exec().getVolumes();
            if (leasedVols != null) {
                leasedVols.forEach(v -> out.add("leased volume " + v.getName()));
            }
            var vols = e.control.listVolumesCmd().withFilter("label", java.util.List.of(Engine.LABEL_OWNER + "="
                    + Engine.OWNER)).exec().getVolumes();
            if (vols != null) {
                vols.forEach(v -> out.add("volume " + v.getName()));
            }
        }
        return out;
    }

    static Sandbox open(SandboxSpec spec) {
        requireDocker();
        return PROVIDER.open(spec);
    }

    static Sandbox open() {
        return open(SandboxSpec.defaults());
    }
}
