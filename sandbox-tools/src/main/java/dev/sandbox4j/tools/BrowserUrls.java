package dev.sandbox4j.tools;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The browser's URL rule, checked before a request is made: {@code http} or {@code https} only; no user info; no
 * loopback ({@code localhost} included, unless the sandbox's own loopback is allowed), private, link-local (the
 * metadata address), CGNAT, unspecified, multicast or unique-local address, no metadata name, and IPv4 only in
 * canonical dotted-quad form (Chromium reads {@code 2130706433} and {@code 0x7f.1} as 127.0.0.1). Names are not
 * resolved here: the egress proxy resolves and checks every address a name has (docs/network.md), for the first
 * request and for every redirect and subresource.
 */
final class BrowserUrls {
    private static final Set<String> METADATA_NAMES = Set.of("metadata.google.internal", "metadata.aws.internal",
            "metadata", "instance-data", "instance-data.ec2.internal");
    /** The URL standard reads a host whose last label is a number (decimal or 0x hex) as an IPv4 address. */
    private static final Pattern NUMERIC_LAST_LABEL = Pattern.compile("[0-9]+|0x[0-9a-f]*");
    private static final Pattern DOTTED_QUAD = Pattern.compile("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)"
            + "(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");

    private BrowserUrls() {
    }

    /** Returns the URL when it may be opened; else PERMISSION_DENIED (address rules) or INVALID_ARGUMENT. */
    static String check(String url, boolean sandboxLoopback) {
        if (url == null || url.isBlank()) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "url is required");
        }
        if (url.length() > 8192) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "url is over 8192 characters");
        }
        URI u;
        try {
            u = new URI(url.strip());
        } catch (URISyntaxException e) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "not a URL: " + e.getMessage());
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "only http and https URLs can be opened, not '"
                    + (scheme.isEmpty() ? url : scheme + ":") + "'");
        }
        if (u.getRawUserInfo() != null) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "URLs with user info (user@host) are refused");
        }
        String host = u.getHost();
        if (host == null && u.getRawAuthority() != null) {
            // java.net.URI has no host for what RFC 2396 calls a registry name (0x7f.1); Chromium still reads one
            host = u.getRawAuthority().replaceFirst(":[0-9]*$", "");
        }
        if (host == null || host.isEmpty()) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "the URL names no host: " + url);
        }
        host = host.toLowerCase(Locale.ROOT);
        if (host.endsWith(".")) {
            host = host.substring(0, host.length() - 1);
        }
        String denied = denied(host, sandboxLoopback);
        if (denied != null) {
            throw new SandboxException(ErrorKind.PERMISSION_DENIED, "navigation to " + host + " is blocked: "
                    + denied);
        }
        return u.toString();
    }

    private static String denied(String host, boolean sandboxLoopback) {
        if (METADATA_NAMES.contains(host)) {
            return "a cloud metadata endpoint";
        }
        if (host.equals("localhost") || host.endsWith(".localhost")) {
            return sandboxLoopback ? null : "loopback";
        }
        InetAddress a;
        if (host.startsWith("[") && host.endsWith("]")) {
            String v6 = host.substring(1, host.length() - 1);
            if (v6.contains("%")) {
                return "an IPv6 zone id";
            }
            a = literal(v6);
        } else if (NUMERIC_LAST_LABEL.matcher(host.substring(host.lastIndexOf('.') + 1)).matches()) {
            if (!DOTTED_QUAD.matcher(host).matches()) {
                return "an IPv4 address not in canonical dotted-quad form";
            }
            a = literal(host);
        } else {
            return null; // a name: the egress proxy resolves it and checks every address
        }
        return category(a, sandboxLoopback);
    }

    private static InetAddress literal(String text) {
        try {
            return InetAddress.getByName(text); // a literal: parsed, never looked up
        } catch (UnknownHostException e) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, "not an IP address: " + text);
        }
    }

    private static String category(InetAddress a, boolean sandboxLoopback) {
        if (a instanceof Inet6Address v6) {
            byte[] b = v6.getAddress();
            boolean mapped = true;
            for (int i = 0; i < 10; i++) {
                mapped &= b[i] == 0;
            }
            if (mapped && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
                return category(literal((b[12] & 0xff) + "." + (b[13] & 0xff) + "." + (b[14] & 0xff) + "."
                        + (b[15] & 0xff)), sandboxLoopback);
            }
            if ((b[0] & 0xfe) == 0xfc) {
                return "a unique-local address";
            }
        }
        if (a.isLoopbackAddress()) {
            return sandboxLoopback ? null : "loopback";
        }
        if (a instanceof Inet4Address) {
            byte[] b = a.getAddress();
            if ((b[0] & 0xff) == 169 && (b[1] & 0xff) == 254) {
                return "link-local (the cloud metadata address)";
            }
            if ((b[0] & 0xff) == 100 && (b[1] & 0xc0) == 64) {
                return "a carrier-grade NAT address";
            }
            if ((b[0] & 0xff) == 0 || (b[0] & 0xff) >= 240) {
                return "a reserved address";
            }
        }
        if (a.isSiteLocalAddress()) {
            return "a private address";
        }
        if (a.isLinkLocalAddress()) {
            return "a link-local address";
        }
        if (a.isAnyLocalAddress() || a.isMulticastAddress()) {
            return "not a unicast address";
        }
        return null;
    }
}
