package dev.sandbox4j.core;

import dev.sandbox4j.ErrorKind;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The host's half of the agent's handshake (sbx-listen.c, PROTOCOL.md "The TCP connector"): each side answers the
 * other's fresh nonce with an HMAC-SHA256 under the shared key, so the key never crosses the wire and a recorded
 * exchange is useless. Used over a TCP connection to a pod's agent and over the relay to a leased agent.
 */
public final class AgentHandshake {
    /** The key's size in bytes. */
    public static final int KEY_BYTES = 32;
    private static final byte[] MAGIC = "SBXAUTH1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HOST_LABEL = "sandbox4j host v1".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] AGENT_LABEL = "sandbox4j agent v1".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    private AgentHandshake() {
    }

    /** Why the handshake failed, with the kind the caller's error takes. */
    public static final class Refused extends IOException {
        private final ErrorKind kind;

        public Refused(ErrorKind kind, String message, Throwable cause) {
            super(message, cause);
            this.kind = kind;
        }

        public ErrorKind kind() {
            return kind;
        }
    }

    /**
     * Runs the handshake over {@code in}/{@code out} under {@code key}; {@code where} names the peer and
     * {@code keyName} the key in errors (never the key). Peer closes before greeting: BACKEND_UNAVAILABLE (another host
     * holds it); after the host's answer: PERMISSION_DENIED (the peer refused the key); a wrong proof:
     * PERMISSION_DENIED (the peer is not the agent).
     */
    public static void run(InputStream in, OutputStream out, byte[] key, String where, String keyName)
            throws IOException {
        DataInputStream din = new DataInputStream(in);
        byte[] hello = new byte[MAGIC.length + 32];
        try {
            din.readFully(hello);
        } catch (EOFException e) {
            throw new Refused(ErrorKind.BACKEND_UNAVAILABLE, "the peer at " + where + " closed the connection before "
                    + "greeting (another host already holds this sandbox's agent?)", e);
        }
        if (!Arrays.equals(Arrays.copyOf(hello, MAGIC.length), MAGIC)) {
            throw new Refused(ErrorKind.BACKEND_UNAVAILABLE, "the peer at " + where + " is not a sandbox4j agent "
                    + "with a TCP connector (its first bytes are not SBXAUTH1)", null);
        }
        byte[] nonceH = new byte[32];
        RANDOM.nextBytes(nonceH);
        byte[] answer = new byte[64];
        System.arraycopy(hmac(key, HOST_LABEL, Arrays.copyOfRange(hello, MAGIC.length, hello.length)), 0, answer, 0,
                32);
        System.arraycopy(nonceH, 0, answer, 32, 32);
        out.write(answer);
        out.flush();
        byte[] proof = new byte[32];
        try {
            din.readFully(proof);
        } catch (EOFException e) {
            throw new Refused(ErrorKind.PERMISSION_DENIED, "the sandbox's agent at " + where + " refused "
                    + keyName, e);
        }
        if (!MessageDigest.isEqual(proof, hmac(key, AGENT_LABEL, nonceH))) {
            throw new Refused(ErrorKind.PERMISSION_DENIED, "the peer at " + where + " does not hold " + keyName
                    + ": not that sandbox's agent", null);
        }
    }

    /** HMAC-SHA256 under {@code key} of {@code label} followed by {@code nonce}. */
    public static byte[] hmac(byte[] key, byte[] label, byte[] nonce) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(label);
            return mac.doFinal(nonce);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }
}
