/**
 * Internal to sandbox4j's backends, no compatibility promise (like OkHttp's {@code internal}): what local and docker
 * share. The native agent ({@code src/main/c}, {@link dev.sandbox4j.core.AgentBinary}) is every sandbox's first
 * process; {@link dev.sandbox4j.core.AgentChannel} speaks its protocol ({@link dev.sandbox4j.core.AgentProtocol}) over
 * whatever the backend offers (bwrap's pipes, a container's attach stream); {@link dev.sandbox4j.core.AgentShell} is
 * the one Shell and CodeRunner (defaults, cwd checks, timeouts, tree kill, output caps);
 * {@link dev.sandbox4j.core.AgentEgress} the one network way out.
 *
 * <p>Also the pure-Java helpers every backend (memory included) shares so behaviour is written once: path rules
 * ({@link dev.sandbox4j.core.WorkspacePaths}), the head+tail output cap ({@link dev.sandbox4j.core.OutputBuffer}),
 * exact replace and edits with diffs ({@link dev.sandbox4j.core.TextEdits}), argument checks
 * ({@link dev.sandbox4j.core.Arguments}), globs ({@link dev.sandbox4j.core.Globs}), grep
 * ({@link dev.sandbox4j.core.GrepScan}, {@link dev.sandbox4j.core.BoundedMatcher}) and the no-follow NIO workspace
 * local and memory use ({@link dev.sandbox4j.core.NioWorkspace}). Stateless helpers are thread-safe; an
 * {@code OutputBuffer} is written by one reader thread and read by any. sandbox-memory shades the helpers it uses
 * (relocated under {@code dev.sandbox4j.memory.internal}), so they never reach a user's test class path as this module.
 *
 * <p>Flow: a backend is a {@link dev.sandbox4j.core.SandboxHost} (the jail or container with the agent in it, its two
 * streams, what only it knows: limits as they hold, cgroups, why it died, its errors) and opens
 * {@link dev.sandbox4j.core.AgentSandbox}, the one Sandbox over it, which builds the AgentChannel, the
 * {@link dev.sandbox4j.core.AgentRunner} for the backend's own commands, the AgentShell, watches and egress, and owns
 * the close order (docs/architecture.md). Threads: one reader thread per channel delivers every command's output and
 * exit; callers block on futures; one shared daemon timer ends background commands at their timeout; closes nobody
 * waits for run on idle-ending daemon threads.
 */
package dev.sandbox4j.core;
