package dev.sandbox4j;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a sandbox is and what it really enforces, as opposed to what its spec asked for.
 *
 * @param id       the sandbox id
 * @param backend  the provider name, such as {@code local}, {@code docker} or {@code memory}
 * @param features the features this sandbox offers
 * @param limits   the limits in force; 0 for each limit not enforced
 * @param details  backend facts worth logging (image, bwrap version, cgroup mode), never secrets
 */
public record SandboxInfo(String id, String backend, Set<Feature> features, ResourceLimits limits,
                          Map<String, String> details) {
    public SandboxInfo {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(backend, "backend");
        features = Set.copyOf(features);
        Objects.requireNonNull(limits, "limits");
        details = Map.copyOf(details);
    }

    public boolean supports(Feature feature) {
        return features.contains(feature);
    }
}
