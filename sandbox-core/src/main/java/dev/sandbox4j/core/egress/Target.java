package dev.sandbox4j.core.egress;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/** Where a request goes: a lower-case name or an IP literal (then {@link #literal} is set), and a port. */
final class Target {
    final String host;
    final int port;
    final InetAddress literal;

    Target(String host, int port, InetAddress literal) {
        this.host = host;
        this.port = port;
        this.literal = literal;
    }

    String authority() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + (port == 80 ? "" : ":" + port);
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /** {@code host[:port]} or {@code [v6][:port]}; IPv4 literals only in canonical dotted-quad form. */
    static Target parse(String authority, int defaultPort) throws BadRequest {
        if (authority.isEmpty() || authority.indexOf('@') >= 0) {
            throw new BadRequest("bad host '" + BadRequest.printable(authority) + "'");
        }
        String host;
        String rest;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            if (close < 0) {
                throw new BadRequest("bad IPv6 literal '" + BadRequest.printable(authority) + "'");
            }
            host = authority.substring(1, close);
            rest = authority.substring(close + 1);
            if (host.isEmpty() || !host.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == ':' || c == '.')) {
                throw new BadRequest("bad IPv6 literal '" + BadRequest.printable(authority) + "'");
            }
        } else {
            int colon = authority.indexOf(':');
            host = colon < 0 ? authority : authority.substring(0, colon);
            rest = colon < 0 ? "" : authority.substring(colon);
        }
        int port = defaultPort;
        if (!rest.isEmpty()) {
            String p = rest.substring(1);
            if (rest.charAt(0) != ':' || p.isEmpty() || p.length() > 5
                    || !p.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw new BadRequest("bad port in '" + BadRequest.printable(authority) + "'");
            }
            port = Integer.parseInt(p);
        }
        if (port < 1 || port > 65535) {
            throw new BadRequest("bad or missing port in '" + BadRequest.printable(authority) + "'");
        }
        if (authority.startsWith("[")) {
            InetAddress a;
            try {
                a = InetAddress.getByName("[" + host + "]"); // a literal: no lookup
            } catch (UnknownHostException e) {
                throw new BadRequest("bad IPv6 literal '" + BadRequest.printable(authority) + "'");
            }
            return new Target(a.getHostAddress(), port, a);
        }
        String name = host.toLowerCase(Locale.ROOT);
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        InetAddress v4 = dottedQuad(name);
        if (v4 != null) {
            return new Target(name, port, v4);
        }
        if (!isDomainName(name)) {
            throw new BadRequest("bad host '" + BadRequest.printable(host) + "'");
        }
        String last = name.substring(name.lastIndexOf('.') + 1);
        if (last.chars().allMatch(c -> c >= '0' && c <= '9') || last.startsWith("0x")) {
            throw new BadRequest("'" + name + "' is neither a domain name nor a dotted-quad IPv4 address");
        }
        return new Target(name, port, null);
    }

    private static InetAddress dottedQuad(String s) {
        String[] parts = s.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        byte[] b = new byte[4];
        for (int i = 0; i < 4; i++) {
            String p = parts[i];
            if (p.isEmpty() || p.length() > 3 || (p.length() > 1 && p.charAt(0) == '0')
                    || !p.chars().allMatch(c -> c >= '0' && c <= '9')) {
                return null;
            }
            int v = Integer.parseInt(p);
            if (v > 255) {
                return null;
            }
            b[i] = (byte) v;
        }
        try {
            return Inet4Address.getByAddress(s, b);
        } catch (UnknownHostException e) {
            return null;
        }
    }

    private static boolean isDomainName(String name) {
        if (name.isEmpty() || name.length() > 253) {
            return false;
        }
        for (String label : name.split("\\.", -1)) {
            if (label.isEmpty() || label.length() > 63 || label.startsWith("-") || label.endsWith("-")) {
                return false;
            }
            for (int i = 0; i < label.length(); i++) {
                char c = label.charAt(i);
                if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) {
                    return false;
                }
            }
        }
        return true;
    }
}
