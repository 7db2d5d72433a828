package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.abort;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** The shipped native binaries: where they are, what they are, and that the loader checks them. */
public class AgentBinaryTest {
    private static final int EM_X86_64 = 62;
    private static final int EM_AARCH64 = 183;
    private static final int PT_DYNAMIC = 2;
    private static final int PT_INTERP = 3;

    @Test
    void architecturesMapToTheirDirectories() {
        assertThat(AgentBinary.canonicalArch("amd64")).isEqualTo("x86_64");
        assertThat(AgentBinary.canonicalArch("x86_64")).isEqualTo("x86_64");
        assertThat(AgentBinary.canonicalArch("aarch64")).isEqualTo("aarch64");
        assertThat(AgentBinary.canonicalArch("arm64")).isEqualTo("aarch64");
        assertThat(AgentBinary.canonicalArch("riscv64")).isNull();
        assertThat(AgentBinary.canonicalArch(null)).isNull();
    }

    @Test
    void anUnsupportedArchitectureIsNamedInTheError() {
        assertThatThrownBy(() -> AgentBinary.bytes(AgentBinary.REAPER, "riscv64"))
                .isInstanceOf(IOException.class).hasMessageContaining("'riscv64'");
        assertThatThrownBy(() -> AgentBinary.bytes("no-such-helper", "amd64"))
                .isInstanceOf(IOException.class).hasMessageContaining("linux-x86_64");
    }

    @Test
    void thisHostsReaperIsAStaticElfForItsMachine() throws IOException {
        String arch = AgentBinary.canonicalArch(System.getProperty("os.arch"));
        assumeTrue(arch != null, "no native build for os.arch " + System.getProperty("os.arch"));
        // the build fails without the host's compiler, so this one is always there
        assertStaticElf(AgentBinary.bytes(AgentBinary.REAPER), arch.equals("x86_64") ? EM_X86_64 : EM_AARCH64);
    }

    @Test
    void bothArchitecturesAreStaticElfs() throws IOException {
        assertStaticElf(AgentBinary.bytes(AgentBinary.REAPER, "amd64"), EM_X86_64);
        assertStaticElf(aarch64Reaper(), EM_AARCH64);
    }

    /** The aarch64 reaper, or a skip naming the missing cross compiler. */
    private static byte[] aarch64Reaper() throws IOException {
        try {
            return AgentBinary.bytes(AgentBinary.REAPER, "aarch64");
        } catch (IOException e) {
            return abort("this build has no aarch64 binaries (no aarch64-linux-gnu-gcc when it ran): "
                    + e.getMessage());
        }
    }

    public static void assertStaticElf(byte[] elf, int machine) {
        ByteBuffer b = ByteBuffer.wrap(elf).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(elf.length).isGreaterThan(64);
        assertThat(b.getInt(0)).as("ELF magic").isEqualTo(0x464c457f);
        assertThat(elf[4]).as("ELFCLASS64").isEqualTo((byte) 2);
        assertThat(elf[5]).as("little-endian").isEqualTo((byte) 1);
        assertThat(b.getShort(16)).as("ET_EXEC").isEqualTo((short) 2);
        assertThat(b.getShort(18) & 0xffff).as("e_machine").isEqualTo(machine);
        long phoff = b.getLong(32);
        int phentsize = b.getShort(54) & 0xffff;
        int phnum = b.getShort(56) & 0xffff;
        assertThat(phnum).isPositive();
        for (int i = 0; i < phnum; i++) {
            int type = b.getInt((int) (phoff + (long) i * phentsize));
            assertThat(type).as("program header %d: no interpreter, no dynamic section", i)
                    .isNotEqualTo(PT_INTERP).isNotEqualTo(PT_DYNAMIC);
        }
    }

    @Test
    void theRelayIsAStaticElfForBothArchitectures() throws IOException {
        assertStaticElf(AgentBinary.bytes(AgentBinary.RELAY, "amd64"), EM_X86_64);
        byte[] aarch64;
        try {
            aarch64 = AgentBinary.bytes(AgentBinary.RELAY, "aarch64");
        } catch (IOException e) {
            aarch64 = abort("this build has no aarch64 binaries: " + e.getMessage());
        }
        assertStaticElf(aarch64, EM_AARCH64);
    }

    @Test
    void theShippedBytesMatchTheirChecksum() throws IOException {
        byte[] agent = AgentBinary.bytes(AgentBinary.AGENT);
        assertThat(AgentBinary.sha256(agent)).hasSize(64);
        // a second call is served from the verified copy, and callers cannot alter it
        agent[0] = 0;
        assertThat(AgentBinary.bytes(AgentBinary.AGENT)[0]).isEqualTo((byte) 0x7f);
    }
}
