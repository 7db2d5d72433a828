/**
 * The API an agent application uses: open a {@link dev.sandbox4j.Sandbox} with {@link dev.sandbox4j.Sandboxes} and a
 * {@link dev.sandbox4j.SandboxSpec}, then run commands ({@link dev.sandbox4j.Shell}), code
 * ({@link dev.sandbox4j.CodeRunner}) and file operations ({@link dev.sandbox4j.FileSystem}) in it. Every failure is a
 * {@link dev.sandbox4j.SandboxException} with an {@link dev.sandbox4j.ErrorKind}; every result is an immutable value.
 *
 * <p>Threads: a sandbox is safe to use from many threads at once; calls block their caller (a command's timeout bounds
 * how long), and {@link dev.sandbox4j.OutputListener}s are called on the backend's own threads. Flow: a request is
 * checked and defaulted here (values validate themselves), then handed to the backend a
 * {@link dev.sandbox4j.spi.SandboxProvider} opened. No dependencies: a test keeps it so.
 *
 * <p>{@link dev.sandbox4j.FileSystem} shares its simple name with {@code java.nio.file.FileSystem}. Code rarely needs
 * both; where it does, import this one and name the other in full, or hold the sandbox's as
 * {@code var files = sandbox.files()}.
 */
package dev.sandbox4j;
