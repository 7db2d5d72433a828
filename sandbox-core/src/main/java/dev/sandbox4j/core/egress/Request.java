package dev.sandbox4j.core.egress;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** One parsed request head. */
final class Request {
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "proxy-connection", "keep-alive",
            "proxy-authorization", "proxy-authenticate", "te", "trailer", "upgrade", "host");

    final String method;
    final String path;
    final String version;
    final Target target;
    final List<String[]> headers;

    private Request(String method, String path, String version, Target target, List<String[]> headers) {
        this.method = method;
        this.path = path;
        this.version = version;
        this.target = target;
        this.headers = headers;
    }

    boolean isConnect() {
        return method.equals("CONNECT");
    }

    /** Null when the stream ends before any byte. */
    static Request read(InputStream in) throws IOException, BadRequest {
        int[] budget = {EgressProxy.MAX_HEAD};
        String line = readLine(in, budget);
        while (line != null && line.isEmpty()) { // tolerate leading empty lines (RFC 9112 2.2)
            line = readLine(in, budget);
        }
        if (line == null) {
            return null;
        }
        String[] parts = line.split(" ", -1);
        if (parts.length != 3 || !isToken(parts[0])
                || !(parts[2].equals("HTTP/1.1") || parts[2].equals("HTTP/1.0"))) {
            throw new BadRequest("bad request line '" + BadRequest.printable(line) + "'");
        }
        String method = parts[0];
        String uri = parts[1];
        List<String[]> headers = new ArrayList<>();
        String hostHeader = null;
        boolean contentLength = false;
        boolean chunked = false;
        while (true) {
            String h = readLine(in, budget);
            if (h == null) {
                throw new BadRequest("request head ended early");
            }
            if (h.isEmpty()) {
                break;
            }
            if (headers.size() >= EgressProxy.MAX_HEADERS) {
                throw new BadRequest(431, "Request Header Fields Too Large", "more than " + EgressProxy.MAX_HEADERS
                        + " header lines");
            }
            int colon = h.indexOf(':');
            if (colon <= 0 || !isToken(h.substring(0, colon))) {
                throw new BadRequest("bad header line '" + BadRequest.printable(h) + "'");
            }
            String name = h.substring(0, colon);
            String value = h.substring(colon + 1).trim();
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.equals("host")) {
                if (hostHeader != null) {
                    throw new BadRequest("more than one Host header");
                }
                hostHeader = value;
            } else if (lower.equals("content-length")) {
                contentLength = true;
            } else if (lower.equals("transfer-encoding")) {
                chunked = true;
            }
            headers.add(new String[] {name, value});
        }
        if (contentLength && chunked) {
            throw new BadRequest("both Content-Length and Transfer-Encoding");
        }
        Target target;
        String path;
        if (method.equals("CONNECT")) {
            target = Target.parse(uri, -1);
            path = null;
        } else if (uri.regionMatches(true, 0, "http://", 0, 7)) {
            String rest = uri.substring(7);
            int slash = indexOfAny(rest, "/?#");
            String authority = slash < 0 ? rest : rest.substring(0, slash);
            path = slash < 0 ? "/" : rest.substring(slash);
            int hash = path.indexOf('#');
            if (hash >= 0) {
                path = path.substring(0, hash);
            }
            if (!path.startsWith("/")) {
                path = "/" + path;
            }
            target = Target.parse(authority, 80);
        } else if (uri.startsWith("/")) {
            if (hostHeader == null) {
                throw new BadRequest("origin-form request without a Host header");
            }
            target = Target.parse(hostHeader, 80);
            path = uri;
        } else if (uri.contains("://")) {
            throw new BadRequest("only http:// URLs can be forwarded (use CONNECT for https)");
        } else {
            throw new BadRequest("bad request target '" + BadRequest.printable(uri) + "'");
        }
        return new Request(method, path, parts[2], target, headers);
    }

    /** The head sent upstream: origin form, our own Host, no hop-by-hop headers, {@code Connection: close}. */
    byte[] forwardedHead() {
        return forwardedHead(path, target.authority(), Set.of(), List.of());
    }

    /** As {@link #forwardedHead()}, with {@code path} and {@code host}, without {@code alsoDrop}, plus {@code extra}. */
    byte[] forwardedHead(String path, String host, Set<String> alsoDrop, List<String[]> extra) {
        Set<String> drop = new HashSet<>(HOP_BY_HOP);
        drop.addAll(alsoDrop);
        for (String[] h : headers) {
            if (h[0].equalsIgnoreCase("connection") || h[0].equalsIgnoreCase("proxy-connection")) {
                for (String token : h[1].split(",")) {
                    drop.add(token.trim().toLowerCase(Locale.ROOT));
                }
            }
        }
        StringBuilder sb = new StringBuilder();
        sb.append(method).append(' ').append(path).append(' ').append(version).append("\r\n");
        sb.append("Host: ").append(host).append("\r\n");
        for (String[] h : headers) {
            if (!drop.contains(h[0].toLowerCase(Locale.ROOT))) {
                sb.append(h[0]).append(": ").append(h[1]).append("\r\n");
            }
        }
        for (String[] h : extra) {
            sb.append(h[0]).append(": ").append(h[1]).append("\r\n");
        }
        sb.append("Connection: close\r\n\r\n");
        return sb.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** One line without its CRLF (or bare LF); null at end of stream before any byte of it. */
    private static String readLine(InputStream in, int[] budget) throws IOException, BadRequest {
        StringBuilder sb = new StringBuilder();
        while (true) {
            int c = in.read();
            if (c < 0) {
                if (sb.length() == 0) {
                    return null;
                }
                throw new BadRequest("request head ended early");
            }
            if (--budget[0] < 0) {
                throw new BadRequest(431, "Request Header Fields Too Large", "request head over "
                        + EgressProxy.MAX_HEAD + " bytes");
            }
            if (c == '\n') {
                int len = sb.length();
                if (len > 0 && sb.charAt(len - 1) == '\r') {
                    sb.setLength(len - 1);
                }
                return sb.toString();
            }
            if (sb.length() >= EgressProxy.MAX_LINE) {
                throw new BadRequest(431, "Request Header Fields Too Large", "a request head line over "
                        + EgressProxy.MAX_LINE + " bytes");
            }
            if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
                throw new BadRequest("control character in the request head");
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) == '\r') {
                throw new BadRequest("bare CR in the request head");
            }
            sb.append((char) c);
        }
    }

    private static boolean isToken(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c <= 0x20 || c >= 0x7f || "()<>@,;:\\\"/[]?={}".indexOf(c) >= 0) {
                return false;
            }
        }
        return true;
    }

    private static int indexOfAny(String s, String chars) {
        for (int i = 0; i < s.length(); i++) {
            if (chars.indexOf(s.charAt(i)) >= 0) {
                return i;
            }
        }
        return -1;
    }
}
