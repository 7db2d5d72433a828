package dev.sandbox4j.kubernetes;

import dev.sandbox4j.core.seccomp.SeccompPolicy;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The seccomp profiles a cluster's nodes hold (docs/kubernetes/seccomp/ARCH/NAME.json, installed under the kubelet's
 * {@code seccomp/sandbox4j/}) are the policy's own output, byte for byte, for every combination of opt-in sets and
 * both architectures: the allow-list is written once (core's {@code Policy}) and a cluster cannot drift from it. After
 * a policy change: {@code mvn -pl sandbox-kubernetes test -Dtest=KubernetesSeccompProfilesTest
 * -Dsandbox4j.seccomp.update=true}.
 */
class KubernetesSeccompProfilesTest {
    static final Path DIR = Path.of("../docs/kubernetes/seccomp");
    static final List<String> ARCHES = List.of("x86_64", "aarch64");

    /** Every subset of the opt-in sets, the empty one first. */
    static List<Set<String>> combinations() {
        List<String> all = new ArrayList<>(new TreeSet<>(SeccompPolicy.OPT_IN_SETS));
        List<Set<String>> out = new ArrayList<>();
        for (int mask = 0; mask < 1 << all.size(); mask++) {
            Set<String> s = new TreeSet<>();
            for (int i = 0; i < all.size(); i++) {
                if ((mask & 1 << i) != 0) {
                    s.add(all.get(i));
                }
            }
            out.add(s);
        }
        return out;
    }

    /** Where the profile of {@code sets} for {@code arch} is kept in the repository. */
    static Path file(String arch, Set<String> sets) {
        return DIR.resolve(arch).resolve(PoolPlan.profileFor(sets).substring(PoolPlan.PROFILE_DIR.length()));
    }

    @Test
    void theCheckedInProfilesAreThePolicysOwn() throws IOException {
        boolean update = Boolean.getBoolean("sandbox4j.seccomp.update");
        List<Path> expected = new ArrayList<>();
        for (String arch : ARCHES) {
            for (Set<String> sets : combinations()) {
                Path f = file(arch, sets);
                expected.add(f);
                String generated = SeccompPolicy.of(sets).ociProfile(arch);
                if (update) {
                    Files.createDirectories(f.getParent());
                    Files.writeString(f, generated);
                }
                assertThat(f).as("%s: regenerate with -Dsandbox4j.seccomp.update=true", f).exists();
                assertThat(Files.readString(f)).as("%s is not the policy's output: regenerate with "
                        + "-Dsandbox4j.seccomp.update=true", f).isEqualTo(generated);
            }
        }
        try (var files = Files.walk(DIR)) {
            assertThat(files.filter(Files::isRegularFile).map(Path::normalize).toList())
                    .as("no profile the policy does not make").containsExactlyInAnyOrderElementsOf(
                            expected.stream().map(Path::normalize).toList());
        }
    }

    @Test
    void profileNamesRoundTrip_andOthersAreNotSandbox4js() {
        for (Set<String> sets : combinations()) {
            assertThat(PoolPlan.setsOf(PoolPlan.profileFor(sets))).isEqualTo(sets);
        }
        assertThat(PoolPlan.profileFor(Set.of())).isEqualTo("sandbox4j/default.json");
        assertThat(PoolPlan.profileFor(Set.of("io_uring", "debug"))).isEqualTo("sandbox4j/debug+io_uring.json");
        for (String other : new String[] {"sandbox4j/io_uring+debug.json", "sandbox4j/evil.json", "default.json",
                "sandbox4j/../default.json", "sandbox4j/default.json.bak", "sandbox4j/+debug.json", "x/sandbox4j/default.json",
                "sandbox4j/debug++io_uring.json", ""}) {
            assertThat(PoolPlan.setsOf(other)).as(other).isNull();
        }
        assertThat(PoolPlan.setsOf(null)).isNull();
    }
}
