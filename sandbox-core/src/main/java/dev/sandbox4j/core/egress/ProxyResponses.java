package dev.sandbox4j.core.egress;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * What {@link EgressProxy} answers itself instead of the target: a short plain-text response whose
 * {@code X-Sandbox4j-Egress} header names why (a refusal, a failed connection or TLS handshake, a bad response from
 * a brokered host), and, for a refusal, the linger that lets the client read it.
 */
final class ProxyResponses {
    private static final long LINGER_BYTES = 4L << 20;
    private static final long LINGER_MILLIS = 2000;
    private static final ScheduledExecutorService TIMER = dev.sandbox4j.core.Background.timer();

    private ProxyResponses() {
    }

    /**
     * Answers, half-closes, then reads and drops what the client still sends (a request body: at most 4 MiB, for at
     * most 2 s) before the caller closes: closing a socket with unread input resets it, and the client could lose the
     * answer with the reason.
     */
    static void refuse(InputStream client, OutputStream out, int status, String text, String code,
            String reason) throws IOException {
        respond(out, status, text, code, reason);
        ScheduledFuture<?> stop = TIMER.schedule(() -> EgressProxy.closeQuietly(client), LINGER_MILLIS, TimeUnit.MILLISECONDS);
        try {
            byte[] buf = new byte[EgressProxy.COPY_BUFFER];
            long dropped = 0;
            int n;
            while (dropped < LINGER_BYTES && (n = client.read(buf)) >= 0) {
                dropped += n;
            }
        } catch (IOException e) {
            // closed at the linger deadline, or the client went away: either way done
        } finally {
            stop.cancel(false);
        }
    }

    static void respond(OutputStream out, int status, String text, String code, String reason) throws IOException {
        byte[] body = ("sandbox4j egress: " + reason + "\n").getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 " + status + " " + text + "\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: " + body.length + "\r\n"
                + "X-Sandbox4j-Egress: " + code + "\r\n"
                + "Connection: close\r\n\r\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
        out.close();
    }
}
