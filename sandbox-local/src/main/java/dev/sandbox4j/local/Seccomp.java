package dev.sandbox4j.local;

import dev.sandbox4j.core.seccomp.SeccompPolicy;
import java.util.Set;

/**
 * The jail's seccomp filter for {@code bwrap --seccomp FD}: sandbox4j's allow-list ({@link SeccompPolicy}, written
 * once in sandbox-core for the jail and the containers) assembled as classic BPF for this JVM's architecture, x86_64
 * or aarch64 (selected by {@code os.arch}); any other architecture is refused, so the jail never runs unfiltered.
 */
final class Seccomp {
    private Seccomp() {
    }

    static boolean supports(String osArch) {
        return SeccompPolicy.supports(osArch);
    }

    /** Whether there is a filter for this JVM's architecture. */
    static boolean available() {
        return supports(System.getProperty("os.arch"));
    }

    /** The filter for this JVM's architecture with the spec's opt-in sets ({@code SandboxSpec.syscallSets()}). */
    static byte[] program(Set<String> syscallSets) {
        return program(System.getProperty("os.arch"), syscallSets);
    }

    /**
     * The filter program for {@code osArch}, 8 bytes per instruction, little-endian (both supported architectures
     * are).
     *
     * @throws IllegalArgumentException naming the architecture when it is not supported
     */
    static byte[] program(String osArch, Set<String> syscallSets) {
        return SeccompPolicy.of(syscallSets).bpf(osArch);
    }

    /** What {@code SandboxInfo.details()} says under {@code seccomp}. */
    static String describe(Set<String> syscallSets) {
        return SeccompPolicy.of(syscallSets).describe(System.getProperty("os.arch"));
    }
}
