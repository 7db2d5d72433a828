package dev.sandbox4j.local;

import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;

/**
 * The jail's static native helpers, built from {@code src/main/c} by the Maven build and shipped as class-path
 * resources {@code dev/sandbox4j/local/native/linux-<arch>/<name>} for x86_64 and aarch64.
 */
final class NativeBinaries {
    /** The per-command supervisor (see {@code src/main/c/sbx-reaper.c}). */
    static final String REAPER = "sbx-reaper";
    /** The jail's main process (see {@code src/main/c/sbx-agent.c}). */
    static final String AGENT = "sbx-agent";

    private static final String ROOT = "native/";

    private NativeBinaries() {
    }

    /**
     * The canonical architecture for a value of {@code os.arch}: {@code x86_64} (amd64, x86_64) or {@code aarch64}
     * (aarch64, arm64); {@code null} for any other.
     */
    static String canonicalArch(String osArch) {
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
    static byte[] bytes(String name) throws IOException {
        return bytes(name, System.getProperty("os.arch"));
    }

    /** The helper's bytes for {@code osArch}; an {@link IOException} naming the architecture when there are none. */
    static byte[] bytes(String name, String osArch) throws IOException {
        String arch = canonicalArch(osArch);
        if (arch == null) {
            throw new IOException("no native " + name + " for architecture '" + osArch
                    + "' (built for linux x86_64 and aarch64 only)");
        }
        String resource = ROOT + "linux-" + arch + "/" + name;
        try (InputStream in = NativeBinaries.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("native " + name + " for linux-" + arch + " (os.arch '" + osArch
                        + "') is not in this build of sandbox-local: it was built without that architecture's"
                        + " C compiler");
            }
            return in.readAllBytes();
        }
    }
}
