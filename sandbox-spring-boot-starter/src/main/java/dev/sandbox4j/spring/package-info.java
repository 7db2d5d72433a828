/**
 * Spring Boot auto-configuration of sandbox4j: {@link dev.sandbox4j.spring.SandboxFactory},
 * {@link dev.sandbox4j.spring.SandboxSessions}, the agent tools as Spring AI tool callbacks
 * ({@link dev.sandbox4j.spring.SandboxToolCallbacks}), a health indicator and Micrometer metrics, configured by
 * {@link dev.sandbox4j.spring.SandboxProperties} ({@code sandbox4j.*}).
 */
package dev.sandbox4j.spring;
