/**
 * The {@code docker} backend: one hardened container per sandbox through the Engine API (docker-java, never in a
 * public signature), public through {@link dev.sandbox4j.docker.DockerSandboxProvider} and
 * {@link dev.sandbox4j.docker.DockerOptions} only. The native agent is the container's PID 1; commands flow through
 * sandbox-core's shell over the container's attach stream (one connection per sandbox, so a remote engine works);
 * files go through the archive endpoints and small scripts the agent runs. Errors from the engine are translated in
 * {@code DockerErrors}. Threads: docker-java's attach threads feed the agent channel's reader.
 */
package dev.sandbox4j.docker;
