package dev.sandbox4j.spring;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.spi.SandboxProvider;
import dev.sandbox4j.tools.StatusBoard;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * Auto-configuration of sandbox4j: a {@link SandboxFactory} from the {@code sandbox4j.*} properties, the
 * {@link SandboxSessions} of the agent tools, the tools as Spring AI tool callbacks ({@link SandboxToolCallbacks}),
 * and, where Spring Boot's health and Micrometer are present, a health indicator and metrics.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
        // where an OpenTelemetry bean comes from: Spring Boot's own, or OpenTelemetry's Spring Boot starter
        "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration",
        "io.opentelemetry.instrumentation.spring.autoconfigure.OpenTelemetryAutoConfiguration"})
@ConditionalOnClass(Sandbox.class)
@EnableConfigurationProperties(SandboxProperties.class)
public class SandboxAutoConfiguration {

    /**
     * The sandbox factory, with Micrometer metrics when a registry is present and every
     * {@link SandboxProviderDecorator} bean applied (OpenTelemetry's when present).
     */
    @Bean
    @ConditionalOnMissingBean
    public SandboxFactory sandboxFactory(SandboxProperties properties, ObjectProvider<SandboxMetrics> metrics,
                                         ObjectProvider<SandboxProviderDecorator> decorators) {
        SandboxMetrics m = metrics.getIfAvailable();
        SandboxFactory factory = new SandboxFactory(properties.getBackend(), properties.toSpec(),
                m == null ? CommandObserver.NONE : m, configuredProviders(properties),
                decorators.orderedStream().toList());
        if (m != null) {
            m.bind(factory);
        }
        if (properties.getPool().isEnabled()) {
            factory.startPool(properties.getPool().toOptions());
        }
        return factory;
    }

    /**
     * The local and Docker providers with the options of {@code sandbox4j.local.*} and {@code sandbox4j.docker.*},
     * for those of the two on the class path (each is referenced only when present).
     */
    static List<SandboxProvider> configuredProviders(SandboxProperties properties) {
        ClassLoader loader = SandboxAutoConfiguration.class.getClassLoader();
        List<SandboxProvider> out = new ArrayList<>();
        if (ClassUtils.isPresent(LocalBackend.OPTIONS_CLASS, loader)) {
            out.add(LocalBackend.provider(properties.getLocal()));
        }
        if (ClassUtils.isPresent(DockerBackend.OPTIONS_CLASS, loader)) {
            out.add(DockerBackend.provider(properties.getDocker()));
        }
        return out;
    }

    /** The agent tools' sandboxes; all closed when the context closes. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public SandboxSessions sandboxSessions(SandboxFactory factory, SandboxProperties properties) {
        SandboxProperties.Session s = properties.getSession();
        return new SandboxSessions(factory::open, s.getIdleTimeout(), s.getMaxSandboxes());
    }

    /**
     * The workers' {@code set_status} lines (the {@code spacebot} tool profile), shared by the tools, the health
     * indicator and the metrics.
     */
    @Bean
    @ConditionalOnMissingBean
    public StatusBoard sandbox4jStatusBoard(ObjectProvider<SandboxMetrics> metrics) {
        StatusBoard board = new StatusBoard();
        SandboxMetrics m = metrics.getIfAvailable();
        if (m != null) {
            m.bind(board);
        }
        return board;
    }

    /** The agent tools as Spring AI tool callbacks. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "sandbox4j.tools", name = "enabled", havingValue = "true", matchIfMissing = true)
    public SandboxToolCallbacks sandboxToolCallbacks(SandboxSessions sessions, SandboxProperties properties,
                                                     StatusBoard statusBoard) {
        return new SandboxToolCallbacks(sessions, properties.toToolConfig().toBuilder().statusBoard(statusBoard)
                .build(), properties.getSession().getFallback());
    }

    /** Micrometer metrics, when Micrometer and a registry are present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    @ConditionalOnBean(MeterRegistry.class)
    static class Metrics {
        @Bean
        @ConditionalOnMissingBean
        SandboxMetrics sandboxMetrics(MeterRegistry registry) {
            return new SandboxMetrics(registry);
        }
    }

    /**
     * OpenTelemetry spans and metrics for every sandbox the factory opens, when {@code sandbox-opentelemetry} is on
     * the class path and an {@code OpenTelemetry} bean exists (from Spring Boot, OpenTelemetry's starter or the
     * application). Switched off by {@code sandbox4j.opentelemetry.enabled=false}.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"io.opentelemetry.api.OpenTelemetry",
            "dev.sandbox4j.opentelemetry.SandboxTelemetry"})
    @ConditionalOnBean(type = "io.opentelemetry.api.OpenTelemetry")
    @ConditionalOnProperty(prefix = "sandbox4j.opentelemetry", name = "enabled", havingValue = "true",
            matchIfMissing = true)
    static class Telemetry {
        @Bean
        @ConditionalOnMissingBean(name = "sandbox4jTelemetryDecorator")
        SandboxProviderDecorator sandbox4jTelemetryDecorator(io.opentelemetry.api.OpenTelemetry openTelemetry) {
            dev.sandbox4j.opentelemetry.SandboxTelemetry telemetry =
                    dev.sandbox4j.opentelemetry.SandboxTelemetry.create(openTelemetry);
            return provider -> telemetry.wrap(provider);
        }
    }

    /** The {@code sandbox4j} health indicator, when Spring Boot's health module is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    static class Health {
        @Bean
        @ConditionalOnMissingBean(name = "sandbox4jHealthIndicator")
        SandboxHealthIndicator sandbox4jHealthIndicator(SandboxFactory factory, SandboxSessions sessions,
                                                        StatusBoard statusBoard) {
            return new SandboxHealthIndicator(factory, sessions, statusBoard);
        }
    }
}
