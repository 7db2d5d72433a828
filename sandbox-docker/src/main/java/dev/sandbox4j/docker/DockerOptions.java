package dev.sandbox4j.docker;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How the Docker backend reaches the engine and builds its containers. Immutable; the {@code with*} methods return
 * copies. Defaults ({@link #defaults()}):
 * <ul>
 * <li>{@code image}: env {@code SANDBOX4J_DOCKER_IMAGE}, else {@value #DEFAULT_IMAGE} (built by
 * {@code scripts/build-test-image.sh}). The image needs {@code /bin/sh}, GNU coreutils and findutils, and a
 * {@code /workspace} directory owned by {@link #user()}.</li>
 * <li>{@code user}: {@value #DEFAULT_USER}; must be non-root.</li>
 * <li>{@code dockerHost}: null, meaning env {@code DOCKER_HOST}, else {@code unix:///var/run/docker.sock}
 * ({@code unix://} and {@code tcp://} both work; TLS settings come from {@code DOCKER_TLS_VERIFY} and
 * {@code DOCKER_CERT_PATH}).</li>
 * <li>{@code apiVersion}: null, meaning unversioned requests (the engine's own version). Pin only to work around an
 * engine quirk: 1.44 breaks Engine 20.10, anything below 1.44 breaks Engine 29.0-29.2.</li>
 * <li>{@code labels}: none; added to every container and volume next to sandbox4j's own {@code dev.sandbox4j.*}.</li>
 * <li>{@code connectTimeout} 5 s, {@code requestTimeout} 60 s (control calls; command streams are bounded by the
 * command timeout instead), {@code pingTimeout} 3 s.</li>
 * <li>{@code seccompProfile}: null, meaning sandbox4j's own profile (a resource of this module).</li>
 * </ul>
 */
public final class DockerOptions {
    /** The image {@code scripts/build-test-image.sh} builds. */
    public static final String DEFAULT_IMAGE = "sandbox4j/runtime:bookworm";
    /** The non-root uid:gid commands run as. */
    public static final String DEFAULT_USER = "10001:10001";

    private final String image;
    private final String user;
    private final String dockerHost;
    private final String apiVersion;
    private final Map<String, String> labels;
    private final Duration connectTimeout;
    private final Duration requestTimeout;
    private final Duration pingTimeout;
    private final String seccompProfile;

    private DockerOptions(String image, String user, String dockerHost, String apiVersion, Map<String, String> labels,
                          Duration connectTimeout, Duration requestTimeout, Duration pingTimeout,
                          String seccompProfile) {
        this.image = image;
        this.user = user;
        this.dockerHost = dockerHost;
        this.apiVersion = apiVersion;
        this.labels = Map.copyOf(labels);
        this.connectTimeout = connectTimeout;
        this.requestTimeout = requestTimeout;
        this.pingTimeout = pingTimeout;
        this.seccompProfile = seccompProfile;
    }

    /** The defaults, with the image from env {@code SANDBOX4J_DOCKER_IMAGE} when set. */
    public static DockerOptions defaults() {
        String env = System.getenv("SANDBOX4J_DOCKER_IMAGE");
        String image = env == null || env.isBlank() ? DEFAULT_IMAGE : env.trim();
        return new DockerOptions(image, DEFAULT_USER, null, null, Map.of(), Duration.ofSeconds(5),
                Duration.ofSeconds(60), Duration.ofSeconds(3), null);
    }

    public String image() {
        return image;
    }

    public String user() {
        return user;
    }

    /** The engine address, or null for {@code DOCKER_HOST} / the default socket. */
    public String dockerHost() {
        return dockerHost;
    }

    /** The pinned Engine API version, or null for unversioned requests. */
    public String apiVersion() {
        return apiVersion;
    }

    public Map<String, String> labels() {
        return labels;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    public Duration pingTimeout() {
        return pingTimeout;
    }

    /** The seccomp profile JSON passed inline to the engine, or null for sandbox4j's own. */
    public String seccompProfile() {
        return seccompProfile;
    }

    public DockerOptions withImage(String image) {
        requireText(image, "image");
        return new DockerOptions(image, user, dockerHost, apiVersion, labels, connectTimeout, requestTimeout,
                pingTimeout, seccompProfile);
    }

    /** Sets the uid:gid (numeric) commands run as; root is refused. */
    public DockerOptions withUser(String user) {
        requireText(user, "user");
        if (!user.matches("[0-9]+(:[0-9]+)?") || user.equals("0") || user.startsWith("0:")) {
            throw new IllegalArgumentException("user must be a numeric non-root uid[:gid], got '" + user + "'");
        }
        return new DockerOptions(image, user, dockerHost, apiVersion, labels, connectTimeout, requestTimeout,
                pingTimeout, seccompProfile);
    }

    public DockerOptions withDockerHost(String dockerHost) {
        requireText(dockerHost, "dockerHost");
        return new DockerOptions(image, user, dockerHost, apiVersion, labels, connectTimeout, requestTimeout,
                pingTimeout, seccompProfile);
    }

    public DockerOptions withApiVersion(String apiVersion) {
        requireText(apiVersion, "apiVersion");
        return new DockerOptions(image, user, dockerHost, apiVersion, labels, connectTimeout, requestTimeout,
                pingTimeout, seccompProfile);
    }

    /** Adds a label to every container and volume; keys under {@code dev.sandbox4j} are reserved. */
    public DockerOptions withLabel(String key, String value) {
        requireText(key, "key");
        Objects.requireNonNull(value, "value");
        if (key.startsWith("dev.sandbox4j")) {
            throw new IllegalArgumentException("label keys under dev.sandbox4j are reserved: " + key);
        }
        Map<String, String> copy = new LinkedHashMap<>(labels);
        copy.put(key, value);
        return new DockerOptions(image, user, dockerHost, apiVersion, copy, connectTimeout, requestTimeout,
                pingTimeout, seccompProfile);
    }

    public DockerOptions withTimeouts(Duration connect, Duration request, Duration ping) {
        return new DockerOptions(image, user, dockerHost, apiVersion, labels, positive(connect), positive(request),
                positive(ping), seccompProfile);
    }

    /** Replaces sandbox4j's seccomp profile with this JSON (Docker's profile format). */
    public DockerOptions withSeccompProfile(String json) {
        requireText(json, "seccomp profile");
        return new DockerOptions(image, user, dockerHost, apiVersion, labels, connectTimeout, requestTimeout,
                pingTimeout, json);
    }

    private static void requireText(String s, String what) {
        if (s == null || s.isBlank()) {
            throw new IllegalArgumentException(what + " must not be blank");
        }
    }

    private static Duration positive(Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + d);
        }
        return d;
    }

    @Override
    public String toString() {
        return "DockerOptions[image=" + image + ", user=" + user + ", dockerHost=" + dockerHost + ", apiVersion="
                + apiVersion + ", labels=" + labels.keySet() + "]";
    }
}
