package dev.sandbox4j.docker;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.pool.PoolOptions;
import dev.sandbox4j.pool.SandboxPool;
import dev.sandbox4j.testing.LifecycleContract;
import dev.sandbox4j.testing.ForwardingFixture;
import dev.sandbox4j.testing.SandboxFixture;
import dev.sandbox4j.testing.ShellContract;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The kit's lifecycle and shell contracts on Docker sandboxes handed out by a {@link SandboxPool} (the whole kit runs
 * on pooled local sandboxes in sandbox-local's PooledLocalConformanceTest; on Docker it would add ~3 minutes to CI).
 * One pool per spec that opens on demand (min 0: a container warm ahead would be opened and thrown away once per
 * test, doubling the class's time; warm hand-out is SandboxPoolTest's, on local jails): every sandbox is still
 * opened on the pool's thread and handed over through it. The leak check closes the pools first.
 */
class PooledDockerConformanceTest implements LifecycleContract, ShellContract {
    private static final SandboxFixture FIXTURE = new PooledFixture(new DockerConformanceTest.DockerFixture());

    @Override
    public SandboxFixture fixture() {
        return FIXTURE;
    }

    static final class PooledFixture extends ForwardingFixture {
        private static final PoolOptions OPTIONS = new PoolOptions(0, 8, 1, Duration.ofMinutes(5),
                Duration.ofMinutes(2));

        private static PoolOptions options(SandboxSpec spec) {
            return OPTIONS;
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
