package dev.sandbox4j.core.seccomp;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * One architecture's syscall numbers, by name, as the filter sees them ({@code seccomp_data.nr}).
 *
 * <p>The tables are resources ({@code x86_64.tbl}, {@code aarch64.tbl}, "number name" a line), generated from the
 * kernel's uapi headers ({@code asm/unistd_64.h}; {@code asm-generic/unistd.h} with arm64's {@code __ARCH_WANT_*}
 * switches) and extended by hand up to Linux 6.18 (451 cachestat .. 469 file_setattr). SyscallTableTest checks them
 * against the headers installed on the build machine. Numbers above {@link #max()} are unknown to the policy.
 */
final class SyscallTable {
    static final SyscallTable X86_64 = load("x86_64", 0xC000003E, true);
    /** AArch32 tasks report AUDIT_ARCH_ARM and are killed by the arch check. */
    static final SyscallTable AARCH64 = load("aarch64", 0xC00000B7, false);

    final String arch;
    /** {@code AUDIT_ARCH_*}: the value of {@code seccomp_data.arch} for native calls. */
    final int auditArch;
    /** x86_64 only: the x32 ABI shares AUDIT_ARCH_X86_64 and is told apart by bit 30 of the number. */
    final boolean hasX32;
    private final Map<String, Integer> byName;
    private final String[] byNr;

    private SyscallTable(String arch, int auditArch, boolean hasX32, Map<String, Integer> byName) {
        this.arch = arch;
        this.auditArch = auditArch;
        this.hasX32 = hasX32;
        this.byName = Map.copyOf(byName);
        int max = byName.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        this.byNr = new String[max + 1];
        byName.forEach((name, nr) -> {
            if (byNr[nr] != null) {
                throw new IllegalStateException(arch + " table: " + nr + " is both " + byNr[nr] + " and " + name);
            }
            byNr[nr] = name;
        });
    }

    private static SyscallTable load(String arch, int auditArch, boolean hasX32) {
        Map<String, Integer> numbers = new HashMap<>();
        try (InputStream in = SyscallTable.class.getResourceAsStream(arch + ".tbl")) {
            if (in == null) {
                throw new IllegalStateException("syscall table " + arch + ".tbl missing");
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                String[] f = line.trim().split(" ");
                if (f.length == 2 && numbers.put(f[1], Integer.parseInt(f[0])) != null) {
                    throw new IllegalStateException(arch + " table: " + f[1] + " twice");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new SyscallTable(arch, auditArch, hasX32, numbers);
    }

    /** The table for a canonical architecture name ({@code x86_64}, {@code aarch64}), or null. */
    static SyscallTable of(String canonicalArch) {
        if ("x86_64".equals(canonicalArch)) {
            return X86_64;
        }
        return "aarch64".equals(canonicalArch) ? AARCH64 : null;
    }

    /** The number of {@code name} here, or -1 when this architecture has no such syscall. */
    int nr(String name) {
        Integer nr = byName.get(name);
        return nr == null ? -1 : nr;
    }

    /** The name of syscall {@code nr}, or null when the table has none. */
    String name(int nr) {
        return nr >= 0 && nr < byNr.length ? byNr[nr] : null;
    }

    boolean has(String name) {
        return byName.containsKey(name);
    }

    /** The highest number the table knows. */
    int max() {
        return byNr.length - 1;
    }

    Map<String, Integer> numbers() {
        return byName;
    }
}
