package dev.sandbox4j.local;

import static dev.sandbox4j.local.ReaperRun.seconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.abort;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shipped native binaries: where they are, what they are, and the aarch64 reaper run under qemu-user. */
class NativeBinariesTest {
    private static final int EM_X86_64 = 62;
    private static final int EM_AARCH64 = 183;
    private static final int PT_DYNAMIC = 2;
    private static final int PT_INTERP = 3;

    @TempDir
    Path dir;

    @Test
    void architecturesMapToTheirDirectories() {
        assertThat(NativeBinaries.canonicalArch("amd64")).isEqualTo("x86_64");
        assertThat(NativeBinaries.canonicalArch("x86_64")).isEqualTo("x86_64");
        assertThat(NativeBinaries.canonicalArch("aarch64")).isEqualTo("aarch64");
        assertThat(NativeBinaries.canonicalArch("arm64")).isEqualTo("aarch64");
        assertThat(NativeBinaries.canonicalArch("riscv64")).isNull();
        assertThat(NativeBinaries.canonicalArch(null)).isNull();
    }

    @Test
    void anUnsupportedArchitectureIsNamedInTheError() {
        assertThatThrownBy(() -> NativeBinaries.bytes(NativeBinaries.REAPER, "riscv64"))
                .isInstanceOf(IOException.class).hasMessageContaining("'riscv64'");
        assertThatThrownBy(() -> NativeBinaries.bytes("no-such-helper", "amd64"))
                .isInstanceOf(IOException.class).hasMessageContaining("linux-x86_64");
    }

    @Test
    void thisHostsReaperIsAStaticElfForItsMachine() throws IOException {
        String arch = NativeBinaries.canonicalArch(System.getProperty("os.arch"));
        assumeTrue(arch != null, "no native build for os.arch " + System.getProperty("os.arch"));
        // the build fails without the host's compiler, so this one is always there
        assertStaticElf(NativeBinaries.bytes(NativeBinaries.REAPER), arch.equals("x86_64") ? EM_X86_64 : EM_AARCH64);
    }

    @Test
    void bothArchitecturesAreStaticElfs() throws IOException {
        assertStaticElf(NativeBinaries.bytes(NativeBinaries.REAPER, "amd64"), EM_X86_64);
        assertStaticElf(aarch64Reaper(), EM_AARCH64);
    }

    /** The aarch64 reaper, or a skip naming the missing cross compiler. */
    private static byte[] aarch64Reaper() throws IOException {
        try {
            return NativeBinaries.bytes(NativeBinaries.REAPER, "aarch64");
        } catch (IOException e) {
            return abort("this build has no aarch64 binaries (no aarch64-linux-gnu-gcc when it ran): "
                    + e.getMessage());
        }
    }

    static void assertStaticElf(byte[] elf, int machine) {
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

    private static String qemu() {
        for (String name : new String[] {"qemu-aarch64-static", "qemu-aarch64"}) {
            for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
                Path p = Paths.get(d, name);
                if (!d.isEmpty() && Files.isExecutable(p)) {
                    return p.toString();
                }
            }
        }
        return null;
    }

    @Test
    void aarch64ReaperUnderQemu() throws Exception {
        String qemu = qemu();
        assumeTrue(qemu != null, "no qemu-aarch64(-static) on PATH (Debian: qemu-user-static)");
        aarch64Reaper();
        Path reaper = ReaperRun.extract(dir, "aarch64");
        Path marker = dir.resolve("ran");

        ReaperRun usage = ReaperRun.start(dir, List.of(qemu, reaper.toString()));
        assertThat(usage.await(seconds(30))).isEqualTo(125);
        assertThat(usage.stderr()).startsWith("sbx-reaper: usage:");

        ReaperRun eof = ReaperRun.start(dir, argv(qemu, reaper, "touch \"$1\"; exit 7", marker));
        assertThat(eof.closeStdin().await(seconds(30))).isEqualTo(125);
        assertThat(marker).doesNotExist();

        ReaperRun run = ReaperRun.start(dir, argv(qemu, reaper, "touch \"$1\"; exit 7", marker));
        int rc = run.gate().await(seconds(30));
        if (rc == 125 && run.stderr().equals("sbx-reaper: prctl: Invalid argument\n")) {
            // it failed closed: the command did not run
            assertThat(marker).doesNotExist();
            abort("this qemu-user (" + qemu + ") answers prctl(PR_SET_CHILD_SUBREAPER) with EINVAL, so the aarch64"
                    + " reaper refuses to run commands under it (exit 125, checked); exit-code passthrough needs a"
                    + " qemu-user that emulates it, or an arm64 machine");
        }
        assertThat(rc).as(run.stderr()).isEqualTo(7);
        assertThat(marker).exists();
        ReaperRun killed = ReaperRun.start(dir, argv(qemu, reaper, "kill -KILL $$", marker));
        assertThat(killed.gate().await(seconds(30))).isEqualTo(137);
    }

    private static List<String> argv(String qemu, Path reaper, String script, Path arg) {
        List<String> argv = new ArrayList<>(List.of(qemu));
        argv.addAll(ReaperRun.reaperArgv(reaper, "/bin/sh", "-c", script, "script", arg.toString()));
        return argv;
    }
}
