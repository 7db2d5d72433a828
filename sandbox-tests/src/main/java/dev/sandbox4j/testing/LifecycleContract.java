package dev.sandbox4j.testing;

/** The conformance contract for {@code Lifecycle}. */
public interface LifecycleContract extends ConformanceSupport {
}
