/**
 * For backend authors, not for applications: {@link dev.sandbox4j.spi.SandboxProvider}, found through
 * {@link java.util.ServiceLoader} by {@link dev.sandbox4j.Sandboxes}. Nothing else lives here: the helpers sandbox4j's
 * own backends share are in the internal module sandbox-core, with no compatibility promise, so they are not frozen
 * as API. A third-party backend needs only this package and {@code dev.sandbox4j}.
 */
package dev.sandbox4j.spi;
