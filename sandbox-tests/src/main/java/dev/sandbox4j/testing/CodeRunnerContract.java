package dev.sandbox4j.testing;

/** The conformance contract for {@code CodeRunner}. */
public interface CodeRunnerContract extends ConformanceSupport {
}
