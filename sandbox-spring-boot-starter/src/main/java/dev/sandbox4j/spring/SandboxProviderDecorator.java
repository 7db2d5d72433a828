package dev.sandbox4j.spring;

import dev.sandbox4j.spi.SandboxProvider;

/**
 * Wraps the providers {@link SandboxFactory} opens sandboxes with, to add behaviour to every sandbox it opens
 * (tracing, an audit log, a policy check). Every bean of this type is applied, in their order: the first wraps the
 * backend's provider, the next wraps that. The starter registers one itself, {@code sandbox4jTelemetryDecorator},
 * when {@code sandbox-opentelemetry} is on the class path and an {@code io.opentelemetry.api.OpenTelemetry} bean
 * exists (docs/observability.md).
 *
 * <p>Everything but {@code open} should reach the provider unchanged ({@code name}, {@code priority},
 * {@code features}, {@code unavailableReason}): the factory picks the backend by them.
 */
@FunctionalInterface
public interface SandboxProviderDecorator {
    /** The provider to open sandboxes with in place of {@code provider}. */
    SandboxProvider decorate(SandboxProvider provider);
}
