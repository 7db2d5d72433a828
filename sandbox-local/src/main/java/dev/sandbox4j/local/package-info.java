/**
 * The {@code local} backend: one bubblewrap jail per sandbox (namespaces, seccomp, cgroups), public through
 * {@link dev.sandbox4j.local.LocalSandboxProvider} and {@link dev.sandbox4j.local.LocalOptions} only. Opening probes the
 * host once ({@code Host}, {@code CgroupSetting}), refuses what cannot hold here ({@code Limits}), makes the cgroups and
 * starts {@code bwrap} with the native agent as the jail's main process ({@code BwrapHost}, this backend's
 * {@code SandboxHost}); the sandbox itself is sandbox-core's {@code AgentSandbox}: commands flow through its shell over
 * bwrap's pipes, files through the no-follow NIO workspace on the host's side of the bind mount.
 * Threads: the agent channel's reader, one stderr drain per jail, a background thread for leftover directories.
 */
package dev.sandbox4j.local;
