package dev.sandbox4j.kubernetes;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import io.fabric8.kubernetes.client.KubernetesClientException;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;

/**
 * The one place where the Kubernetes backend turns native failures into {@link ErrorKind}s: the API server's answers
 * (fabric8's {@link KubernetesClientException} with its HTTP code), transport failures, and the agent connection's.
 */
final class KubeErrors {
    private KubeErrors() {
    }

    static SandboxException error(ErrorKind kind, String message) {
        return new SandboxException(kind, message);
    }

    static SandboxException error(ErrorKind kind, String message, Throwable cause) {
        return new SandboxException(kind, message, cause);
    }

    static SandboxException interrupted(String what) {
        Thread.currentThread().interrupt();
        return new SandboxException(ErrorKind.INTERRUPTED, "interrupted while " + what);
    }

    /** Any failure of an API call ({@code what}: what was being done). SandboxExceptions pass through. */
    static SandboxException translate(String what, Throwable e) {
        if (e instanceof SandboxException se) {
            return se;
        }
        KubernetesClientException k = find(e, KubernetesClientException.class);
        if (k != null && k.getCode() > 0) {
            int code = k.getCode();
            String status = k.getStatus() != null && k.getStatus().getMessage() != null
                    ? k.getStatus().getMessage() : k.getMessage();
            return switch (code) {
                case 401, 403 -> SandboxException.permanent(ErrorKind.PERMISSION_DENIED, what + ": the API server "
                        + "refused (" + code + ": " + status + "); the JVM's service account needs the RBAC of "
                        + "docs/kubernetes.md", e);
                case 404 -> SandboxException.permanent(ErrorKind.BACKEND_UNAVAILABLE, what + ": not found (" + status
                        + "); is agent-sandbox installed, and the pool in this namespace?", e);
                case 409 -> new SandboxException(ErrorKind.CONFLICT, what + ": conflict (" + status + ")", e);
                case 422, 400 -> SandboxException.permanent(ErrorKind.INVALID_ARGUMENT, what + ": the API server "
                        + "refused the object (" + code + ": " + status + ")", e);
                case 429 -> new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, what + ": the API server is "
                        + "throttling (" + status + ")", e);
                default -> new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, what + ": the API server answered "
                        + code + " (" + status + ")", e);
            };
        }
        if (find(e, InterruptedException.class) != null || find(e, InterruptedIOException.class) != null
                && !(find(e, InterruptedIOException.class) instanceof SocketTimeoutException)) {
            return interrupted(what);
        }
        if (find(e, SocketTimeoutException.class) != null) {
            return new SandboxException(ErrorKind.TIMEOUT, what + ": timed out (" + brief(e) + ")", e);
        }
        if (find(e, ConnectException.class) != null || find(e, IOException.class) != null) {
            return new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, what + ": cannot reach the API server ("
                    + brief(e) + "); check the kubeconfig or the in-cluster configuration", e);
        }
        return new SandboxException(ErrorKind.BACKEND_UNAVAILABLE, what + ": " + brief(e), e);
    }

    private static <T extends Throwable> T find(Throwable e, Class<T> type) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    private static String brief(Throwable e) {
        String m = e.getMessage();
        if (m == null) {
            m = e.getClass().getSimpleName();
        }
        return m.length() > 300 ? m.substring(0, 300) + "..." : m;
    }
}
