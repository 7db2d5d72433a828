package dev.sandbox4j.core.egress;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

import dev.sandbox4j.NetworkPolicy;

/**
 * Replaces, in a byte stream, every secret of a policy's credentials with its placeholder of the same length, so a
 * brokered host that echoes a secret (in a header, a body, an error message) never hands it to the sandbox. The same
 * length keeps every framing the bytes carry ({@code Content-Length}, chunk sizes) true without rewriting it.
 *
 * <p>Streaming: {@link #push} returns what can no longer be the start of a secret and keeps the last
 * {@code longest - 1} bytes until more come or {@link #finish}. Not thread-safe: one per direction of one exchange.
 */
final class Scrubber {
    private final byte[][] secrets;
    private final byte[][] placeholders;
    private final int keep;
    private byte[] buf = new byte[0];
    private int len;

    private Scrubber(List<byte[]> secrets, List<byte[]> placeholders) {
        this.secrets = secrets.toArray(new byte[0][]);
        this.placeholders = placeholders.toArray(new byte[0][]);
        int longest = 0;
        for (byte[] s : this.secrets) {
            longest = Math.max(longest, s.length);
        }
        this.keep = Math.max(0, longest - 1);
    }

    /** Every form in which the policy's secrets travel: as is, and a basic credential's base64 form. */
    static Scrubber of(NetworkPolicy policy) {
        List<byte[]> from = new ArrayList<>();
        List<byte[]> to = new ArrayList<>();
        for (NetworkPolicy.Credential c : policy.credentials()) {
            from.add(c.revealSecret().getBytes(StandardCharsets.US_ASCII));
            to.add(c.placeholder().getBytes(StandardCharsets.US_ASCII));
            if (c.kind() == NetworkPolicy.Credential.Kind.BASIC) {
                from.add(basic(c.user(), c.revealSecret()).getBytes(StandardCharsets.US_ASCII));
                to.add(basic(c.user(), c.placeholder()).getBytes(StandardCharsets.US_ASCII));
            }
        }
        return new Scrubber(from, to);
    }

    static String basic(String user, String password) {
        return Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.US_ASCII));
    }

    /** A fresh scrubber for the same secrets (each stream needs its own held-back bytes). */
    Scrubber copy() {
        return new Scrubber(Arrays.asList(secrets), Arrays.asList(placeholders));
    }

    /** Scrubs a whole value at once (a header line). */
    byte[] all(byte[] bytes) {
        byte[] out = bytes.clone();
        replace(out, out.length);
        return out;
    }

    /** Adds {@code n} bytes; returns those that are final (scrubbed, and no secret can start among them). */
    byte[] push(byte[] b, int off, int n) {
        if (buf.length < len + n) {
            buf = Arrays.copyOf(buf, Math.max(len + n, buf.length * 2));
        }
        System.arraycopy(b, off, buf, len, n);
        len += n;
        replace(buf, len);
        int ready = Math.max(0, len - keep);
        byte[] out = Arrays.copyOf(buf, ready);
        System.arraycopy(buf, ready, buf, 0, len - ready);
        len -= ready;
        return out;
    }

    /** The bytes still held back, scrubbed. */
    byte[] finish() {
        replace(buf, len);
        byte[] out = Arrays.copyOf(buf, len);
        len = 0;
        return out;
    }

    private void replace(byte[] b, int n) {
        for (int k = 0; k < secrets.length; k++) {
            byte[] s = secrets[k];
            for (int i = 0; i + s.length <= n; i++) {
                if (b[i] == s[0] && Arrays.equals(b, i, i + s.length, s, 0, s.length)) {
                    System.arraycopy(placeholders[k], 0, b, i, s.length);
                    i += s.length - 1;
                }
            }
        }
    }
}
