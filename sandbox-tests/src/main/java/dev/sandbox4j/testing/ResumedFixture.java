package dev.sandbox4j.testing;

import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;

/**
 * The kit on sandboxes that were paused and resumed before any test touched them (issue 31: "the kit passes against
 * resumed sandboxes"): whatever a freeze and thaw could break (the agent's channel, timers, the cgroups, the engine's
 * view of the container) shows up as a contract failing here and not on the plain fixture. A sandbox whose
 * {@code info()} lacks {@link Feature#PAUSE} (a non-root jail without a delegated cgroup) is handed out as opened.
 */
public final class ResumedFixture extends ForwardingFixture {
    public ResumedFixture(SandboxFixture plain) {
        super(plain);
    }

    @Override
    public Sandbox open(SandboxSpec spec) {
        return pausedAndResumed(delegate().open(spec));
    }

    @Override
    public Sandbox openWithContexts(SandboxSpec spec) {
        return pausedAndResumed(delegate().openWithContexts(spec));
    }

    private static Sandbox pausedAndResumed(Sandbox sandbox) {
        if (sandbox.info().features().contains(Feature.PAUSE)) {
            try {
                sandbox.pause();
                sandbox.resume();
            } catch (RuntimeException e) {
                sandbox.close();
                throw e;
            }
        }
        return sandbox;
    }
}
