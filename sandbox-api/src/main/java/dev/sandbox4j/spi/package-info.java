/**
 * For backend authors and the conformance kit, not for applications: {@link dev.sandbox4j.spi.SandboxProvider}
 * (found through {@link java.util.ServiceLoader}) and the helpers every backend shares so behaviour is written once:
 * path rules ({@link dev.sandbox4j.spi.WorkspacePaths}), the head+tail output cap
 * ({@link dev.sandbox4j.spi.OutputBuffer}), exact replace and edits with diffs ({@link dev.sandbox4j.spi.TextEdits}),
 * globs, grep ({@link dev.sandbox4j.spi.GrepScan}, {@link dev.sandbox4j.spi.BoundedMatcher}) and the no-follow NIO
 * workspace local and memory use. Stateless helpers are thread-safe; an {@code OutputBuffer} is written by one reader
 * thread and read by any.
 */
package dev.sandbox4j.spi;
