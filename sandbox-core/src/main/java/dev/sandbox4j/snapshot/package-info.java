/**
 * Snapshots of a workspace (issue 31): {@link dev.sandbox4j.snapshot.Snapshots}, written once for every backend over
 * the file API, and {@link dev.sandbox4j.snapshot.JdbcSnapshotStore}. The format and its limits are in
 * docs/snapshots.md.
 */
package dev.sandbox4j.snapshot;
