package dev.sandbox4j;

/** Whether commands in the sandbox may use the network. */
public enum NetworkPolicy {
    /** Loopback only: nothing leaves the sandbox, nothing on the host is reachable. The default. */
    NONE,
    /**
     * Full outbound network where the backend can give it safely; a backend that cannot fails to open with
     * {@link ErrorKind#UNSUPPORTED}.
     */
    ALLOW_ALL
}
