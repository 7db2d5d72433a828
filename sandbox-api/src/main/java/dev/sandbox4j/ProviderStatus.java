package dev.sandbox4j;

import java.util.Set;

/**
 * Whether a backend can open sandboxes on this host, and if not, why and what to install.
 *
 * @param name      the provider name, such as {@code local}
 * @param priority  higher wins when {@link Sandboxes#open()} picks a provider; negative: only opened by name
 * @param available whether it can open sandboxes here
 * @param reason    why not, with what to do about it; or a short description when available
 * @param features  the features its sandboxes offer
 */
public record ProviderStatus(String name, int priority, boolean available, String reason, Set<Feature> features) {
    public ProviderStatus {
        features = Set.copyOf(features);
    }
}
