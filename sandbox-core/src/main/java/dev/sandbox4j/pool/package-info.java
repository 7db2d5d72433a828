/**
 * Warm pools: sandboxes opened ahead of demand ({@link dev.sandbox4j.pool.SandboxPool}). The one public package of
 * sandbox-core, with the compatibility promise of sandbox-api; it depends on sandbox-api only, so a pool works with
 * any provider, the in-memory one included.
 */
package dev.sandbox4j.pool;
