package dev.sandbox4j.testing;

/** The conformance contract for {@code Shell}. */
public interface ShellContract extends ConformanceSupport {
}
