package dev.sandbox4j.core.egress;

import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.NetworkPolicy.Credential;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One request to a host with a brokered credential: the sandbox sent plain HTTP to the proxy with a placeholder;
 * upstream gets the real value over HTTPS (the proxy's TLS, certificate checked for the host's name), and the response
 * comes back with every secret scrubbed. Decided by the request's own target only (its URL, or its Host header in
 * origin form), which is also the name dialed and verified, so no header or redirect can send the value elsewhere.
 *
 * <p>The response is read as HTTP/1.1 (bounded head, chunked or length- or close-delimited body). A compressed body
 * could hide an echoed secret from the scrubber, so the request asks for {@code identity} and a response that is
 * compressed anyway is refused.
 */
final class Brokered {
    static final int MAX_HEAD = 64 * 1024;
    static final int MAX_HEADERS = 200;
    private static final int BUFFER = 16 * 1024;

    private Brokered() {
    }

    /**
     * The credential to apply to {@code r}, or null: plain HTTP to a name that has one, on port 80 or the
     * credential's HTTPS port.
     */
    static Credential match(NetworkPolicy policy, Request r) {
        if (policy.credentials().isEmpty() || r.isConnect() || r.target.literal != null) {
            return null;
        }
        Credential c = policy.credentialFor(r.target.host);
        return c != null && (r.target.port == 80 || r.target.port == c.port()) ? c : null;
    }

    /** The head sent upstream: the request's own, with the credential in place of whatever the sandbox put there. */
    static byte[] head(Request r, Credential c) {
        List<String[]> extra = new ArrayList<>();
        String path = r.path;
        switch (c.kind()) {
            case HEADER -> extra.add(new String[] {c.name(), c.revealSecret()});
            case BEARER -> extra.add(new String[] {"Authorization", "Bearer " + c.revealSecret()});
            case BASIC -> extra.add(new String[] {"Authorization", "Basic " + Scrubber.basic(c.user(),
                    c.revealSecret())});
            case QUERY_PARAMETER -> path = withParameter(r.path, c.name(), c.revealSecret());
            default -> throw new IllegalStateException(c.kind().name());
        }
        extra.add(new String[] {"Accept-Encoding", "identity"});
        Set<String> drop = c.kind() == Credential.Kind.QUERY_PARAMETER ? Set.of("accept-encoding")
                : Set.of("accept-encoding", c.name().toLowerCase(Locale.ROOT));
        return r.forwardedHead(path, c.port() == 443 ? r.target.host : r.target.host + ":" + c.port(), drop, extra);
    }

    /** {@code path} with every {@code name=...} parameter removed and {@code name=value} appended. */
    static String withParameter(String path, String name, String value) {
        int q = path.indexOf('?');
        String base = q < 0 ? path : path.substring(0, q);
        StringBuilder sb = new StringBuilder(base).append('?');
        if (q >= 0) {
            for (String p : path.substring(q + 1).split("&")) {
                String key = p.indexOf('=') < 0 ? p : p.substring(0, p.indexOf('='));
                if (!p.isEmpty() && !key.equals(name)) {
                    sb.append(p).append('&');
                }
            }
        }
        return sb.append(name).append('=').append(URLEncoder.encode(value, StandardCharsets.US_ASCII)).toString();
    }

    /** Thrown when the upstream's response cannot be relayed safely; the client gets a 502 if nothing went yet. */
    static final class BadResponse extends IOException {
        private static final long serialVersionUID = 1L;
        final boolean started;

        BadResponse(String message, boolean started) {
            super(message);
            this.started = started;
        }
    }

    /** Relays the response (1xx heads first) from {@code up} to {@code client}, scrubbed. */
    static void relay(InputStream up, OutputStream client, Scrubber scrubber, String method) throws IOException {
        boolean started = false;
        while (true) {
            Head head = Head.read(up, started);
            if (head.encoded) {
                throw new BadResponse("the brokered host sent a compressed response though identity was asked for",
                        started);
            }
            client.write(scrubber.all(head.bytes));
            client.flush();
            started = true;
            if (head.status >= 100 && head.status < 200 && head.status != 101) {
                continue;
            }
            if (method.equals("HEAD") || head.status == 204 || head.status == 304 || head.status == 101) {
                return;
            }
            if (head.chunked) {
                chunked(up, client, scrubber.copy());
            } else {
                body(up, client, scrubber.copy(), head.length);
            }
            return;
        }
    }

    private static void body(InputStream up, OutputStream client, Scrubber s, long length) throws IOException {
        byte[] b = new byte[BUFFER];
        long left = length < 0 ? Long.MAX_VALUE : length;
        while (left > 0) {
            int n = up.read(b, 0, (int) Math.min(b.length, left));
            if (n < 0) {
                break;
            }
            left -= n;
            client.write(s.push(b, 0, n));
            client.flush();
        }
        client.write(s.finish());
        client.flush();
    }

    /** De-chunks, scrubs and re-chunks, one output chunk per read, so a stream (SSE) keeps flowing. */
    private static void chunked(InputStream up, OutputStream client, Scrubber s) throws IOException {
        byte[] b = new byte[BUFFER];
        while (true) {
            long size = chunkSize(line(up));
            if (size == 0) {
                break;
            }
            for (long left = size; left > 0; ) {
                int n = up.read(b, 0, (int) Math.min(b.length, left));
                if (n < 0) {
                    throw new BadResponse("the brokered host's chunked body ended early", true);
                }
                left -= n;
                writeChunk(client, s.push(b, 0, n));
            }
            if (!line(up).isEmpty()) {
                throw new BadResponse("no CRLF after a chunk", true);
            }
        }
        for (int i = 0; i < MAX_HEADERS && !line(up).isEmpty(); i++) {
            // trailers: dropped (they could carry a secret, and nothing needs them)
        }
        writeChunk(client, s.finish());
        client.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        client.flush();
    }

    private static void writeChunk(OutputStream client, byte[] data) throws IOException {
        if (data.length == 0) {
            return;
        }
        client.write((Integer.toHexString(data.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        client.write(data);
        client.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        client.flush();
    }

    private static long chunkSize(String line) throws BadResponse {
        int semi = line.indexOf(';');
        String hex = (semi < 0 ? line : line.substring(0, semi)).trim();
        if (hex.isEmpty() || hex.length() > 12 || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            throw new BadResponse("bad chunk size line from the brokered host", true);
        }
        return Long.parseLong(hex, 16);
    }

    /** One line of at most 8 KiB without its line end. */
    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) {
                throw new BadResponse("the brokered host's response ended early", true);
            }
            if (sb.length() >= EgressProxy.MAX_LINE) {
                throw new BadResponse("a line over " + EgressProxy.MAX_LINE + " bytes from the brokered host", true);
            }
            sb.append((char) c);
        }
        int n = sb.length();
        return n > 0 && sb.charAt(n - 1) == '\r' ? sb.substring(0, n - 1) : sb.toString();
    }

    /** A response head as received (re-sent byte for byte, scrubbed), with what framing it declares. */
    private record Head(byte[] bytes, int status, boolean chunked, long length, boolean encoded) {
        static Head read(InputStream in, boolean started) throws IOException {
            ByteArrayOutputStream raw = new ByteArrayOutputStream();
            String status = line(in);
            raw.writeBytes((status + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            String[] parts = status.split(" ", 3);
            if (parts.length < 2 || !parts[0].startsWith("HTTP/1.") || parts[1].length() != 3
                    || !parts[1].chars().allMatch(Character::isDigit)) {
                throw new BadResponse("a bad status line from the brokered host", started);
            }
            boolean chunked = false;
            boolean encoded = false;
            long length = -1;
            for (int i = 0; ; i++) {
                String h = line(in);
                raw.writeBytes((h + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                if (h.isEmpty()) {
                    break;
                }
                if (i >= MAX_HEADERS || raw.size() > MAX_HEAD) {
                    throw new BadResponse("the brokered host's response head is too large", started);
                }
                int colon = h.indexOf(':');
                String name = colon < 0 ? "" : h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = colon < 0 ? "" : h.substring(colon + 1).trim().toLowerCase(Locale.ROOT);
                if (name.equals("transfer-encoding")) {
                    chunked = value.endsWith("chunked");
                } else if (name.equals("content-length")) {
                    length = parseLength(value, started);
                } else if (name.equals("content-encoding")) {
                    encoded |= !value.isEmpty() && !value.equals("identity");
                }
            }
            return new Head(raw.toByteArray(), Integer.parseInt(parts[1]), chunked, chunked ? -1 : length, encoded);
        }

        private static long parseLength(String v, boolean started) throws BadResponse {
            if (v.isEmpty() || v.length() > 18 || !v.chars().allMatch(Character::isDigit)) {
                throw new BadResponse("a bad Content-Length from the brokered host", started);
            }
            return Long.parseLong(v);
        }
    }
}
