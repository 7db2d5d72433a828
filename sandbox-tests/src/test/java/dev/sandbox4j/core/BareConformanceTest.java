package dev.sandbox4j.core;

import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.testing.SandboxConformance;
import dev.sandbox4j.testing.SandboxFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * The conformance kit on the bare host: the shared agent layer with no jail and no engine. It declares what it
 * provides ({@link BareHost#FEATURES}: no isolation, no limits, no network policy), and runs every contract those
 * allow. Skipped only where unprivileged user namespaces are off (then {@code SANDBOX4J_REQUIRE=bare} fails it).
 */
class BareConformanceTest implements SandboxConformance {
    private static final String UNAVAILABLE = BareHost.unavailableReason();

    static final class BareFixture implements SandboxFixture {
        @Override
        public Sandbox open(SandboxSpec spec) {
            return BareHost.open(spec);
        }

        @Override
        public Set<Feature> features() {
            assumeAvailable();
            return BareHost.FEATURES;
        }

        /** Each bare sandbox's own directory (its info says which). */
        @Override
        public String workspaceRoot(Sandbox sandbox) {
            return sandbox.info().details().get("workspace");
        }

        /** This JVM's bare sandboxes' directories, agents and launchers still there. */
        @Override
        public List<String> leaks() {
            List<String> left = new ArrayList<>();
            try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
                s.filter(p -> p.getFileName().toString().startsWith(BareHost.PREFIX))
                        .forEach(p -> left.add("directory " + p));
            } catch (IOException e) {
                left.add("cannot list the temporary directory: " + e.getMessage());
            }
            ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                    .filter(h -> h.info().commandLine().orElse("").matches(".*(unshare|sbx-agent|sbx-reaper).*"))
                    .forEach(h -> left.add("process " + h.pid() + " " + h.info().commandLine().orElse("")));
            return left;
        }
    }

    static void assumeAvailable() {
        boolean required = List.of(System.getenv().getOrDefault("SANDBOX4J_REQUIRE", "").split(","))
                .contains("bare");
        if (UNAVAILABLE != null && required) {
            throw new AssertionError("SANDBOX4J_REQUIRE=bare, but: " + UNAVAILABLE);
        }
        Assumptions.assumeTrue(UNAVAILABLE == null, UNAVAILABLE);
    }

    @Override
    public SandboxFixture fixture() {
        return new BareFixture();
    }
}
