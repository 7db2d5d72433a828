/**
 * The {@code memory} backend for applications' unit tests: a real file system in memory (jimfs, shaded) and scripted
 * commands and code ({@link dev.sandbox4j.memory.MemorySandbox}); no isolation, no processes. It passes the same
 * conformance kit as the real backends for every feature it declares. Thread-safe like the others; handlers run on
 * the caller's thread.
 */
package dev.sandbox4j.memory;
