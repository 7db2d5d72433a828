package dev.sandbox4j.mcp;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Every HTTP request passes here first: the bearer token (compared in constant time), the request body bound
 * (by {@code Content-Length}, and while reading for a body without one), and the client's session bookkeeping (any
 * request keeps it alive; a successful {@code DELETE} ends it and closes its sandboxes). Refusals are small JSON
 * bodies, never a stack trace.
 */
final class HttpGuard implements Filter {
    static final String SESSION_HEADER = "Mcp-Session-Id";

    private final byte[] expected;
    private final long maxBody;
    private final long maxUpload;
    private final Clients clients;

    HttpGuard(String token, long maxBody, long maxUpload, Clients clients) {
        this.expected = token == null ? null : ("Bearer " + token).getBytes(StandardCharsets.UTF_8);
        this.maxBody = maxBody;
        this.maxUpload = maxUpload;
        this.clients = clients;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest request = (HttpServletRequest) req;
        HttpServletResponse response = (HttpServletResponse) res;
        if (expected != null) {
            String got = request.getHeader("Authorization");
            if (got == null || !MessageDigest.isEqual(expected, got.getBytes(StandardCharsets.UTF_8))) {
                response.setHeader("WWW-Authenticate", "Bearer realm=\"sandbox4j\"");
                refuse(response, 401, "unauthorized", "a valid bearer token is required (Authorization: Bearer"
                        + " TOKEN)");
                return;
            }
        }
        long length = request.getContentLengthLong();
        // an AIO upload streams to the sandbox (the multipart parser spools past 1 MiB): its own, larger bound
        long max = "/v1/file/upload".equals(request.getRequestURI()) ? maxUpload + (1 << 20) : maxBody;
        if (length > max) {
            refuse(response, 413, "too_large", "the request body of " + length + " bytes exceeds the limit of "
                    + max);
            return;
        }
        String session = request.getHeader(SESSION_HEADER);
        if (session != null) {
            clients.touch(session);
        }
        chain.doFilter(new Bounded(request, max), response);
        if (session != null && "DELETE".equals(request.getMethod()) && response.getStatus() < 300) {
            clients.ended(session);
        }
    }

    static void refuse(HttpServletResponse response, int status, String error, String message) throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        response.getWriter().write(McpTools.json(java.util.Map.of("error", error, "message", message)));
    }

    /** The request with a body that fails once it passes the bound, whatever the headers said. */
    private static final class Bounded extends HttpServletRequestWrapper {
        private final long max;
        private ServletInputStream in;

        Bounded(HttpServletRequest request, long max) {
            super(request);
            this.max = max;
        }

        @Override
        public synchronized ServletInputStream getInputStream() throws IOException {
            if (in == null) {
                ServletInputStream raw = super.getInputStream();
                in = new ServletInputStream() {
                    private long read;

                    private int count(int n) throws IOException {
                        if (n > 0 && (read += n) > max) {
                            throw new IOException("request body exceeds " + max + " bytes");
                        }
                        return n;
                    }

                    @Override
                    public int read() throws IOException {
                        int b = raw.read();
                        if (b >= 0) {
                            count(1);
                        }
                        return b;
                    }

                    @Override
                    public int read(byte[] buf, int off, int len) throws IOException {
                        return count(raw.read(buf, off, len));
                    }

                    @Override
                    public boolean isFinished() {
                        return raw.isFinished();
                    }

                    @Override
                    public boolean isReady() {
                        return raw.isReady();
                    }

                    @Override
                    public void setReadListener(ReadListener listener) {
                        raw.setReadListener(listener);
                    }
                };
            }
            return in;
        }

        @Override
        public BufferedReader getReader() throws IOException {
            String charset = getCharacterEncoding() == null ? "UTF-8" : getCharacterEncoding();
            return new BufferedReader(new InputStreamReader(getInputStream(), charset));
        }
    }
}
