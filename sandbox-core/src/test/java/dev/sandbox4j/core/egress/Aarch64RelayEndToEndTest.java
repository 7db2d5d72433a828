package dev.sandbox4j.core.egress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.abort;

import dev.sandbox4j.core.AgentBinary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Every end-to-end relay test again with the linux-aarch64 {@code sbx-relay} of this build, run under qemu-user
 * ({@code qemu-aarch64-static}, Debian's qemu-user-static), so the binary an arm64 host extracts has carried real
 * traffic (HTTP, CONNECT, 4 MiB both ways, refusals, curl and python3 clients) before any arm64 machine runs it.
 * Skips (naming why) where the build has no aarch64 binaries or there is no qemu-user.
 */
class Aarch64RelayEndToEndTest extends RelayEndToEndTest {
    @Override
    List<String> relayCommand(Path dir) throws Exception {
        String qemu = qemu();
        if (qemu == null) {
            abort("no qemu-aarch64(-static) on PATH (Debian: qemu-user-static)");
        }
        byte[] binary;
        try {
            binary = AgentBinary.bytes(AgentBinary.RELAY, "aarch64");
        } catch (IOException e) {
            return abort("this build has no aarch64 binaries (no aarch64-linux-gnu-gcc when it ran): "
                    + e.getMessage());
        }
        // an ELF for machine 183 (EM_AARCH64), so the test cannot pass on the host's own build by mistake
        assertThat(Arrays.copyOfRange(binary, 0, 4)).containsExactly(0x7f, 'E', 'L', 'F');
        assertThat(binary[18] & 0xff | (binary[19] & 0xff) << 8).isEqualTo(183);
        return List.of(qemu, write(dir, binary).toString(), "0");
    }

    private static String qemu() {
        for (String name : List.of("qemu-aarch64-static", "qemu-aarch64")) {
            for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
                if (!d.isEmpty() && Files.isExecutable(Path.of(d, name))) {
                    return Path.of(d, name).toString();
                }
            }
        }
        return null;
    }
}
