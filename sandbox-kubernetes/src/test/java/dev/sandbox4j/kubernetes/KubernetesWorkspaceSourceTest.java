package dev.sandbox4j.kubernetes;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.WorkspaceSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A pod's workspace from a host directory beyond the kit's contracts (which KubernetesConformanceTest runs): what the
 * info says, a source larger than the pool's workspace emptyDir refused before a byte is sent and nothing left
 * claimed, a name this JVM cannot decode refused rather than renamed.
 */
class KubernetesWorkspaceSourceTest {
    static ControllerSimulator sim;
    static KubernetesSandboxProvider provider;

    @BeforeAll
    static void start() throws Exception {
        KubernetesTestSupport.assumeDocker();
        sim = new ControllerSimulator();
        provider = new KubernetesSandboxProvider(sim.allPools(), sim.client);
    }

    @AfterAll
    static void stop() {
        if (provider != null) {
            provider.close();
        }
        if (sim != null) {
            sim.close();
        }
    }

    private static int claims() {
        return sim.client.resources(Crd.SandboxClaim.class).inNamespace(ControllerSimulator.NAMESPACE).list()
                .getItems().size();
    }

    @Test
    void aCopyIsStreamedIn_andTheInfoSaysSo(@TempDir Path src) throws Exception {
        Files.writeString(src.resolve("a.txt"), "a");
        Files.createDirectories(src.resolve("d/e"));
        Files.writeString(src.resolve("d/e/b.txt"), "b");
        Files.createSymbolicLink(src.resolve("l"), Path.of("../outside"));
        try (Sandbox s = provider.open(SandboxSpec.builder().workspace(WorkspaceSource.copyOf(src)).build())) {
            assertThat(s.info().details().get("workspace source")).startsWith("copy " + src.toRealPath())
                    .contains("streamed: 3 files and links, 2 bytes");
            assertThat(s.shell().run("cat a.txt d/e/b.txt; readlink l; id -u; stat -c %u a.txt").stdout())
                    .isEqualTo("ab../outside\n10001\n10001\n");
        }
    }

    @Test
    void aSourceOverTheEmptyDirsSizeLimit_isRefusedTyped_andNothingIsLeft(@TempDir Path src) throws Exception {
        Files.write(src.resolve("big.bin"), new byte[9 << 20]); // the small pool's workspace emptyDir is 8 Mi
        int before = claims();
        assertThatThrownBy(() -> provider.open(SandboxSpec.builder().workspace(WorkspaceSource.copyOf(src))
                .limits(ResourceLimits.DEFAULTS.withMaxProcesses(64)).build()))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(ErrorKind.NO_SPACE_LEFT)).hasMessageContaining("sizeLimit of 8388608");
        KubernetesTestSupport.eventually(() -> claims() == before);
    }

    @Test
    void aNameThisJvmCannotDecode_isRefused_notRenamed(@TempDir Path src) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", "printf x > \"$(printf 'bad\\377name')\"").directory(src.toFile())
                .start();
        assertThat(p.waitFor()).isZero();
        int before = claims();
        assertThatThrownBy(() -> provider.open(SandboxSpec.builder().workspace(WorkspaceSource.copyOf(src)).build()))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(ErrorKind.INVALID_PATH));
        KubernetesTestSupport.eventually(() -> claims() == before);
    }
}
