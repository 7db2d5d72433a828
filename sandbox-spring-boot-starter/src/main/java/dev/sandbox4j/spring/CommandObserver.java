package dev.sandbox4j.spring;

import java.time.Duration;

/** What {@link SandboxFactory} reports about the sandboxes it opened: where Micrometer metrics come from. */
interface CommandObserver {
    CommandObserver NONE = new CommandObserver() {
    };

    /** A sandbox opened on this backend. */
    default void opened(String backend) {
    }

    /**
     * A command or code run ended.
     *
     * @param kind    {@code shell} or {@code code}
     * @param status  {@code completed}, {@code timeout}, {@code killed}, {@code error_runtime}, {@code error_setup},
     *                or {@code failed} when the call threw
     */
    default void commandFinished(String backend, String kind, String status, Duration duration) {
    }
}
