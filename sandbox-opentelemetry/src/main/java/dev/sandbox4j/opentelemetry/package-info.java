/**
 * OpenTelemetry traces and metrics for sandbox4j: {@link dev.sandbox4j.opentelemetry.SandboxTelemetry} wraps a
 * sandbox, a provider or a factory's open. OpenTelemetry API only; no content in any span or metric.
 */
package dev.sandbox4j.opentelemetry;
