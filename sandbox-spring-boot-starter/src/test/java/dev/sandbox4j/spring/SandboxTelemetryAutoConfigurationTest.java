package dev.sandbox4j.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.opentelemetry.SandboxTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.metrics.MeterProvider;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** With sandbox-opentelemetry on the class path and an OpenTelemetry bean, the factory's sandboxes are traced. */
class SandboxTelemetryAutoConfigurationTest {
    final InMemorySpanExporter spans = InMemorySpanExporter.create();
    final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .build();

    /** The SDK as a bean the context does not shut down when it closes (the SDK has close(); this view has not). */
    final OpenTelemetry bean = new OpenTelemetry() {
        @Override
        public TracerProvider getTracerProvider() {
            return sdk.getTracerProvider();
        }

        @Override
        public MeterProvider getMeterProvider() {
            return sdk.getMeterProvider();
        }

        @Override
        public ContextPropagators getPropagators() {
            return sdk.getPropagators();
        }
    };

    final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SandboxAutoConfiguration.class))
            .withPropertyValues("sandbox4j.backend=memory");

    @AfterEach
    void closeSdk() {
        sdk.close();
    }

    private List<String> names() {
        return spans.getFinishedSpanItems().stream().map(SpanData::getName).toList();
    }

    @Test
    void anOpenTelemetryBean_tracesEverySandboxTheFactoryOpens() {
        runner.withBean(OpenTelemetry.class, () -> bean).run(ctx -> {
            assertThat(ctx).hasBean("sandbox4jTelemetryDecorator");
            SandboxFactory factory = ctx.getBean(SandboxFactory.class);
            String id;
            try (Sandbox sandbox = factory.open()) {
                id = sandbox.id();
                assertThat(sandbox.shell().run("echo hi").stdout()).isEqualTo("hi\n");
                assertThat(factory.openSandboxes()).isEqualTo(1);
            }
            assertThat(factory.status().name()).isEqualTo("memory");
            assertThat(names()).containsExactly("sandbox4j.open", "sandbox4j.command", "sandbox4j.close");
            assertThat(spans.getFinishedSpanItems()).allSatisfy(s -> {
                assertThat(s.getAttributes().get(AttributeKey.stringKey("sandbox4j.sandbox.id"))).isEqualTo(id);
                assertThat(s.getAttributes().get(AttributeKey.stringKey("sandbox4j.backend"))).isEqualTo("memory");
            });
        });
    }

    @Test
    void withoutTheBean_theModuleOrTheSwitch_nothingIsTraced() {
        runner.run(ctx -> {
            assertThat(ctx).doesNotHaveBean("sandbox4jTelemetryDecorator");
            try (Sandbox sandbox = ctx.getBean(SandboxFactory.class).open()) {
                sandbox.shell().run("echo hi");
            }
        });
        runner.withBean(OpenTelemetry.class, () -> bean)
                .withClassLoader(new FilteredClassLoader(SandboxTelemetry.class))
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed().doesNotHaveBean("sandbox4jTelemetryDecorator");
                    try (Sandbox sandbox = ctx.getBean(SandboxFactory.class).open()) {
                        sandbox.shell().run("echo hi");
                    }
                });
        runner.withBean(OpenTelemetry.class, () -> bean).withPropertyValues("sandbox4j.opentelemetry.enabled=false")
                .run(ctx -> {
                    assertThat(ctx).doesNotHaveBean("sandbox4jTelemetryDecorator");
                    try (Sandbox sandbox = ctx.getBean(SandboxFactory.class).open()) {
                        sandbox.shell().run("echo hi");
                    }
                });
        assertThat(names()).isEmpty();
        runner.withBean(OpenTelemetry.class, () -> bean).run(ctx -> ctx.getBean(SandboxFactory.class).open().close());
        assertThat(names()).as("the SDK still exports: the emptiness above is real").contains("sandbox4j.open");
    }
}
