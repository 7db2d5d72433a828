package dev.sandbox4j.local;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.WorkspaceSource;
import dev.sandbox4j.pool.PoolOptions;
import dev.sandbox4j.pool.SandboxPool;
import dev.sandbox4j.testing.FileRulesContract;
import dev.sandbox4j.testing.LifecycleContract;
import dev.sandbox4j.testing.LimitsContract;
import dev.sandbox4j.testing.PauseContract;
import dev.sandbox4j.testing.ShellContract;
import dev.sandbox4j.testing.WorkspaceQuotaContract;
import dev.sandbox4j.testing.WorkspaceSourceContract;
import dev.sandbox4j.testing.ForwardingFixture;
import dev.sandbox4j.testing.SandboxFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The conformance kit on sandboxes handed out by a {@link SandboxPool}: opened ahead on the pool's thread, handed over,
 * closed by the caller. Each spec a test opens gets its own pool (one warm sandbox ahead, a second opened while the
 * first is lent); the leak check closes the pools first, so what it then finds is what the lent sandboxes left.
 *
 * <p>The contracts where a sandbox opened ahead could differ from a fresh one: its lifetime and close, its commands,
 * limits and quota (held from the open on), pause, its workspace source and file rules (decided at open). The whole
 * kit passed this way once (250 run, 0 failed, 19 skipped: issue 31's notes); CI runs these, in the Maven run only
 * (tagged {@code once}: the pool's hand-out does not depend on the host setting).
 */
@org.junit.jupiter.api.Tag("once")
class PooledLocalConformanceTest implements LifecycleContract, ShellContract, LimitsContract, WorkspaceQuotaContract,
        PauseContract, WorkspaceSourceContract, FileRulesContract {
    private static final PooledFixture FIXTURE = new PooledFixture(new LocalConformanceTest.LocalFixture());

    @Override
    public SandboxFixture fixture() {
        return FIXTURE;
    }

    static final class PooledFixture extends ForwardingFixture {
        private static final PoolOptions OPTIONS = new PoolOptions(1, 8, 1, Duration.ofMinutes(5),
                Duration.ofMinutes(2));

        /**
         * One warm ahead, except for sources whose open acts outside the sandbox (a git source clones, a volume is
         * held by every sandbox on it): a warm one would clone again or hold the volume, which the kit rightly
         * counts. Those pools open on demand (docs/pools.md, limits).
         */
        private static PoolOptions options(SandboxSpec spec) {
            WorkspaceSource.Kind kind = spec.workspace().kind();
            return kind == WorkspaceSource.Kind.GIT || kind == WorkspaceSource.Kind.VOLUME ? OPTIONS.withMin(0)
                    : OPTIONS;
        }
        private final Map<SandboxSpec, SandboxPool> pools = new IdentityHashMap<>();

        PooledFixture(SandboxFixture plain) {
            super(plain);
        }

        @Override
        public Sandbox open(SandboxSpec spec) {
            SandboxPool pool;
            synchronized (pools) {
                pool = pools.computeIfAbsent(spec, s -> SandboxPool.of(() -> delegate().open(s), options(s)));
            }
            return pool.acquire();
        }

        @Override
        public Sandbox openWithContexts(SandboxSpec spec) {
            return open(spec);
        }

        @Override
        public List<String> leaks() {
            List<SandboxPool> open;
            synchronized (pools) {
                open = new ArrayList<>(pools.values());
                pools.clear();
            }
            open.forEach(SandboxPool::close);
            return delegate().leaks();
        }

    }
}
