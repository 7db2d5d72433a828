package dev.sandbox4j.docker;

import java.util.List;

/**
 * The container's fixed paths and environments. The file API no longer runs scripts here: it goes through the agent's
 * own file operations ({@code dev.sandbox4j.core.AgentWorkspace}).
 */
final class WorkspaceScripts {
    static final String WORKSPACE = "/workspace";

    private WorkspaceScripts() {
    }

    /**
     * The fixed environment of everything the SDK runs for itself in the container (file scripts, probes): a PATH of
     * the image's own directories, the C locale, and empty values for what a shell or the dynamic loader would
     * otherwise take code from. The spec's and the request's environment never reach these processes.
     */
    static final List<String> FIXED_ENV = List.of("PATH=/usr/bin:/bin", "LC_ALL=C", "LANG=C", "HOME=/",
            "BASH_ENV=", "ENV=", "CDPATH=", "LD_PRELOAD=", "LD_LIBRARY_PATH=", "LD_AUDIT=", "GLIBC_TUNABLES=");

    /**
     * The base environment of the user's commands, before the spec's and the request's variables: the container's
     * own environment, which the agent starts every command from.
     */
    static final List<String> BASE_ENV = List.of("PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/workspace",
            "LANG=C.UTF-8", "TMPDIR=/tmp");
}
