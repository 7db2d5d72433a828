package dev.sandbox4j.spring;

import java.util.UUID;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;

/** The per-request sandbox key; loaded only when spring-web is on the class path. */
final class RequestScope {
    static final String ATTRIBUTE = "dev.sandbox4j.spring.sandboxKey";

    private RequestScope() {
    }

    /**
     * The key of the current request's sandbox, registering its close for when the request completes; null on a
     * thread that serves no request.
     */
    static String key(SandboxSessions sessions) {
        RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
        if (attributes == null) {
            return null;
        }
        Object key = attributes.getAttribute(ATTRIBUTE, RequestAttributes.SCOPE_REQUEST);
        if (key == null) {
            String k = "request:" + UUID.randomUUID();
            attributes.setAttribute(ATTRIBUTE, k, RequestAttributes.SCOPE_REQUEST);
            attributes.registerDestructionCallback(ATTRIBUTE, () -> sessions.close(k), RequestAttributes.SCOPE_REQUEST);
            key = k;
        }
        return key.toString();
    }
}
