package dev.sandbox4j.core;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The static native helpers every backend puts in its sandbox, built from {@code src/main/c} by the Maven build and
 * shipped as class-path resources {@code dev/sandbox4j/core/native/linux-<arch>/<name>} for x86_64 and aarch64, with
 * a {@code SHA256SUMS} file per architecture. A helper whose bytes do not match its checksum is refused: a corrupt or
 * tampered jar must not put an unknown binary into every sandbox as its first process.
 */
public final class AgentBinary {
    /** The per-command supervisor (see {@code src/main/c/sbx-reaper.c}). */
    public static final String REAPER = "sbx-reaper";
    /** Every sandbox's first process (see {@code src/main/c/sbx-agent.c}). */
    public static final String AGENT = "sbx-agent";
    /**
     * The egress relay a sandbox with network runs as a long-lived command (see {@code src/main/c/sbx-relay.c} and
     * {@link dev.sandbox4j.core.egress.RelayMux}).
     */
    public static final String RELAY = "sbx-relay";

    private static final String ROOT = "native/";
    private static final Map<String, byte[]> VERIFIED = new ConcurrentHashMap<>();

    private AgentBinary() {
    }

    /**
     * The canonical architecture for a value of {@code os.arch} or Docker's {@code Architecture}: {@code x86_64}
     * (amd64, x86_64) or {@code aarch64} (aarch64, arm64); {@code null} for any other.
     */
    public static String canonicalArch(String osArch) {
        if (osArch == null) {
            return null;
        }
        switch (osArch.trim().toLowerCase(Locale.ROOT)) {
            case "amd64":
            case "x86_64":
                return "x86_64";
            case "aarch64":
            case "arm64":
                return "aarch64";
            default:
                return null;
        }
    }

    /** The helper's bytes for this JVM's architecture ({@code os.arch}). */
    public static byte[] bytes(String name) throws IOException {
        return bytes(name, System.getProperty("os.arch"));
    }

    /**
     * The helper's bytes for {@code osArch}, checked against the build's checksum (once per JVM); an
     * {@link IOException} naming the architecture when there are none or they do not match.
     */
    public static byte[] bytes(String name, String osArch) throws IOException {
        String arch = canonicalArch(osArch);
        if (arch == null) {
            throw new IOException("no native " + name + " for architecture '" + osArch
                    + "' (built for linux x86_64 and aarch64 only)");
        }
        String resource = ROOT + "linux-" + arch + "/" + name;
        byte[] cached = VERIFIED.get(resource);
        if (cached != null) {
            return cached.clone();
        }
        byte[] bytes;
        try (InputStream in = AgentBinary.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("native " + name + " for linux-" + arch + " (architecture '" + osArch
                        + "') is not in this build of sandbox-core: it was built without that architecture's"
                        + " C compiler");
            }
            bytes = in.readAllBytes();
        }
        String expected = expectedSha256(arch, name);
        String actual = sha256(bytes);
        if (!actual.equals(expected)) {
            throw new IOException("native " + name + " for linux-" + arch + " does not match its checksum (sha256 "
                    + actual + ", expected " + expected + "): the jar is corrupt or was altered");
        }
        VERIFIED.put(resource, bytes);
        return bytes.clone();
    }

    /**
     * Writes the helper for this JVM's architecture to {@code dir/name}, checked as {@link #bytes(String)} and
     * executable ({@code rwxr-xr-x}); returns its path. For hosts whose sandbox sees a host directory.
     */
    public static java.nio.file.Path write(java.nio.file.Path dir, String name) throws IOException {
        java.nio.file.Path file = dir.resolve(name);
        java.nio.file.Files.write(file, bytes(name));
        java.nio.file.Files.setPosixFilePermissions(file,
                java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }

    private static String expectedSha256(String arch, String name) throws IOException {
        try (InputStream in = AgentBinary.class.getResourceAsStream(ROOT + "linux-" + arch + "/SHA256SUMS")) {
            if (in == null) {
                throw new IOException("no SHA256SUMS for linux-" + arch + " in this build of sandbox-core");
            }
            for (String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
                String[] parts = line.trim().split("\\s+\\*?");
                if (parts.length == 2 && parts[1].equals(name)) {
                    return parts[0].toLowerCase(Locale.ROOT);
                }
            }
        }
        throw new IOException("no checksum for " + name + " in SHA256SUMS of linux-" + arch);
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
