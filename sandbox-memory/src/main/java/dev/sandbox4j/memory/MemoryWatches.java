package dev.sandbox4j.memory;

import dev.sandbox4j.FileSystem;
import dev.sandbox4j.FileWatch;
import dev.sandbox4j.core.NioWorkspace;
import dev.sandbox4j.core.WatchHub;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The raw changes behind the in-memory sandbox's watches: nothing but its file API (and the scripted handlers that
 * call it) changes its files, so the changes that API reports ({@link NioWorkspace.Options#withChanges}) are all
 * there are. Each goes to the watches whose root covers it, the way inotify would see it: a rename across a watch's
 * edge is a {@code CREATE} inside or a {@code REMOVE} of what left; a watch on a file sees that path only.
 * Non-recursive filtering, globs and debounce are {@link WatchHub}'s.
 */
final class MemoryWatches implements WatchHub.Source, NioWorkspace.Changes {
    private record Root(String path, boolean dir, WatchHub.Sink sink) {
        boolean covers(String p) {
            return p.equals(path) || dir && (path.isEmpty() || p.startsWith(path + "/"));
        }
    }

    private final Map<Integer, Root> roots = new ConcurrentHashMap<>();
    private volatile FileSystem files;

    /** Connects the workspace whose changes these are; before any watch starts. */
    void attach(FileSystem workspace) {
        this.files = workspace;
    }

    @Override
    public void start(int id, String path, boolean recursive, WatchHub.Sink sink) {
        roots.put(id, new Root(path, path.isEmpty() || files.stat(path).isDirectory(), sink));
    }

    @Override
    public void stop(int id) {
        roots.remove(id);
    }

    @Override
    public void changed(FileWatch.Kind kind, String path, String fromPath, boolean dir, long size, long modified) {
        if (roots.isEmpty()) {
            return;
        }
        for (Root r : roots.values()) {
            boolean to = r.covers(path);
            boolean from = kind == FileWatch.Kind.RENAME && r.covers(fromPath);
            if (to && (from || kind != FileWatch.Kind.RENAME)) {
                r.sink().event(kind, path, fromPath, dir, size, modified);
            } else if (to) {
                r.sink().event(FileWatch.Kind.CREATE, path, "", dir, size, modified); // moved in from outside
            } else if (from) {
                r.sink().event(FileWatch.Kind.REMOVE, fromPath, "", dir, 0, 0); // moved out
            }
        }
    }
}
