/**
 * Internal: the network egress path every backend shares. A sandbox's only way out is {@link
 * dev.sandbox4j.core.egress.EgressProxy}, an HTTP CONNECT / plain HTTP proxy in the host JVM that checks names against
 * the {@link dev.sandbox4j.NetworkPolicy}, resolves them outside the sandbox and checks every address against {@link
 * dev.sandbox4j.core.egress.AddressDenyList}. Inside the sandbox, {@code sbx-relay} listens on loopback and carries
 * each accepted connection over its own stdin/stdout to {@link dev.sandbox4j.core.egress.RelayMux}. Public only so the
 * backends (other packages) can use it: no compatibility promise. See {@code docs/network.md}.
 */
package dev.sandbox4j.core.egress;
