package dev.sandbox4j.testing;

/** The conformance contract for {@code FileSystem}. */
public interface FileSystemContract extends ConformanceSupport {
}
