/**
 * The {@code docker} backend: one hardened container per sandbox through the Engine API (docker-java, never in a
 * public signature), public through {@link dev.sandbox4j.docker.DockerSandboxProvider} and
 * {@link dev.sandbox4j.docker.DockerOptions} only. The sandbox is sandbox-core's {@code AgentSandbox}; this package
 * is its {@code SandboxHost}, {@code ContainerHost}: the container with the native agent as PID 1, driven over the
 * container's attach stream (one connection per sandbox, so a remote engine works). Files go through the agent's own
 * file operations (core's {@code AgentWorkspace}), writes over 1 MiB through the archive endpoint and the agent's
 * commit. Errors from the engine are translated in
 * {@code DockerErrors}. Threads: docker-java's attach threads feed the agent channel's reader.
 */
package dev.sandbox4j.docker;
