/**
 * The conformance kit: JUnit 5 contracts ({@link dev.sandbox4j.testing.SandboxConformance} and its parts) that every
 * backend passes, gated on the {@link dev.sandbox4j.Feature}s it declares. A backend's test implements
 * {@link dev.sandbox4j.testing.SandboxFixture} (open, features, leaks) and the kit does the rest;
 * {@link dev.sandbox4j.testing.Required} is the one reading of {@code SANDBOX4J_REQUIRE}.
 */
package dev.sandbox4j.testing;
