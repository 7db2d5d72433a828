package dev.sandbox4j.testing;

/**
 * The whole conformance kit. A backend passes it with one test class:
 *
 * <pre>{@code
 * class LocalConformanceTest implements SandboxConformance {
 *     public SandboxFixture fixture() { return new LocalFixture(); }
 * }
 * }</pre>
 */
public interface SandboxConformance extends FileSystemContract, ShellContract, CodeRunnerContract, CodeContextContract,
        LifecycleContract, LimitsContract, NetworkPolicyContract, WorkspaceQuotaContract, WatchContract,
        RawOutputContract, LaunchErrorContract, CredentialContract, WorkspaceSourceContract,
        WorkspaceVolumeContract, WorkspaceGitContract, PauseContract, FileRulesContract, PortContract,
        SnapshotContract {
}
