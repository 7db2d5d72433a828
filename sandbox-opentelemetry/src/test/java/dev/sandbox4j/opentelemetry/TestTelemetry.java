package dev.sandbox4j.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.PointData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/** An OpenTelemetry SDK of its own per test, exporting to memory: spans as they end, metrics when collected. */
final class TestTelemetry implements AutoCloseable {
    final InMemorySpanExporter spans = InMemorySpanExporter.create();
    final InMemoryMetricReader metrics = InMemoryMetricReader.create();
    final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .build();
    final SandboxTelemetry telemetry = SandboxTelemetry.create(sdk);

    List<SpanData> spans() {
        return spans.getFinishedSpanItems();
    }

    List<String> spanNames() {
        return spans().stream().map(SpanData::getName).toList();
    }

    SpanData span(String name) {
        List<SpanData> found = spans().stream().filter(s -> s.getName().equals(name)).toList();
        assertThat(found).as("spans named " + name + " in " + spanNames()).hasSize(1);
        return found.get(0);
    }

    Collection<MetricData> collect() {
        return metrics.collectAllMetrics();
    }

    Optional<MetricData> metric(Collection<MetricData> all, String name) {
        return all.stream().filter(m -> m.getName().equals(name)).findFirst();
    }

    /** Every attribute set of every point of every metric collected. */
    static List<Attributes> pointAttributes(Collection<MetricData> all) {
        List<Attributes> out = new ArrayList<>();
        for (MetricData m : all) {
            for (PointData p : m.getData().getPoints()) {
                out.add(p.getAttributes());
            }
        }
        return out;
    }

    static <T> T attr(SpanData span, String key, Class<T> type) {
        Object v = span.getAttributes().asMap().entrySet().stream()
                .filter(e -> e.getKey().getKey().equals(key)).map(e -> e.getValue()).findFirst().orElse(null);
        return type.cast(v);
    }

    static String str(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    @Override
    public void close() {
        sdk.close();
    }
}
