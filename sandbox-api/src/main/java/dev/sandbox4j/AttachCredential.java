package dev.sandbox4j;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The secret that lets a host {@linkplain Sandboxes#attach attach} to a leased sandbox ({@link SandboxSpec#lease()}):
 * 32 random bytes. Keep it as a password: whoever holds it (and can reach the sandbox's backend) drives the sandbox.
 * It never appears in {@link #toString()}, logs or exceptions, and compares in constant time; {@link #reveal()} is the
 * one way to its text, for storing it.
 */
public final class AttachCredential {
    private static final int BYTES = 32;
    private static final String PREFIX = "sbxa1.";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final byte[] key;

    private AttachCredential(byte[] key) {
        this.key = key;
    }

    /** A fresh credential from a strong random source. */
    public static AttachCredential generate() {
        byte[] k = new byte[BYTES];
        RANDOM.nextBytes(k);
        return new AttachCredential(k);
    }

    /**
     * The credential whose text {@link #reveal()} gave.
     *
     * @throws SandboxException {@link ErrorKind#INVALID_ARGUMENT} when the text is not one (the message never quotes it)
     */
    public static AttachCredential parse(String text) {
        String t = text == null ? "" : text.strip();
        if (t.startsWith(PREFIX) && t.length() == PREFIX.length() + 2 * BYTES) {
            try {
                return new AttachCredential(HexFormat.of().parseHex(t, PREFIX.length(), t.length()));
            } catch (IllegalArgumentException e) {
                // not hex: refused below, without the text
            }
        }
        throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "not an attach credential (want " + PREFIX
                + " and 64 hexadecimal digits)");
    }

    /** The credential's text, to store where secrets are stored; {@link #parse} reads it back. */
    public String reveal() {
        return PREFIX + HexFormat.of().formatHex(key);
    }

    /** The 32 key bytes (a copy), for a backend's handshake. */
    public byte[] keyBytes() {
        return key.clone();
    }

    /** Constant time in the content. */
    @Override
    public boolean equals(Object o) {
        return o instanceof AttachCredential c && MessageDigest.isEqual(key, c.key);
    }

    /** The same for every credential: a hash would tell something of the key. */
    @Override
    public int hashCode() {
        return AttachCredential.class.hashCode();
    }

    @Override
    public String toString() {
        return "AttachCredential[redacted]";
    }
}
