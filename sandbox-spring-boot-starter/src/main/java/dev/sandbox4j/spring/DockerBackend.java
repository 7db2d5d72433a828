package dev.sandbox4j.spring;

import dev.sandbox4j.docker.DockerOptions;
import dev.sandbox4j.docker.DockerSandboxProvider;
import dev.sandbox4j.spi.SandboxProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The Docker provider with {@code sandbox4j.docker.*}; loaded only when sandbox-docker is on the class path. */
final class DockerBackend {
    static final String OPTIONS_CLASS = "dev.sandbox4j.docker.DockerOptions";

    private DockerBackend() {
    }

    static SandboxProvider provider(SandboxProperties.Docker p) {
        DockerOptions o = DockerOptions.defaults();
        if (p.getImage() != null) {
            o = o.withImage(p.getImage());
        }
        if (p.getUser() != null) {
            o = o.withUser(p.getUser());
        }
        if (p.getDockerHost() != null) {
            o = o.withDockerHost(p.getDockerHost());
        }
        if (p.getApiVersion() != null) {
            o = o.withApiVersion(p.getApiVersion());
        }
        for (var label : p.getLabels().entrySet()) {
            o = o.withLabel(label.getKey(), label.getValue());
        }
        if (p.getConnectTimeout() != null || p.getRequestTimeout() != null || p.getPingTimeout() != null) {
            o = o.withTimeouts(or(p.getConnectTimeout(), o.connectTimeout()),
                    or(p.getRequestTimeout(), o.requestTimeout()), or(p.getPingTimeout(), o.pingTimeout()));
        }
        if (p.getSeccompProfile() != null) {
            try {
                o = o.withSeccompProfile(p.getSeccompProfile().getContentAsString(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException("sandbox4j.docker.seccomp-profile: cannot read "
                        + p.getSeccompProfile(), e);
            }
        }
        return new DockerSandboxProvider(o);
    }

    private static <T> T or(T value, T fallback) {
        return value != null ? value : fallback;
    }
}
