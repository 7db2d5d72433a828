package dev.sandbox4j.core;

import dev.sandbox4j.FileWatch;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * File watches through the sandbox's agent (inotify inside the sandbox, so changes made by commands count), for every
 * backend that runs the agent. The agent's records are decoded here with every length checked: a malformed record
 * drops the rest of its frame and reports an overflow (the reader rescans), never an exception on the reader thread.
 */
public final class AgentWatches implements WatchHub.Source {
    /** A record's kind byte ({@code AgentProtocol.EVENT_*}) to the API's kind. */
    private static final FileWatch.Kind[] KINDS = new FileWatch.Kind[5];

    static {
        KINDS[AgentProtocol.EVENT_CREATE] = FileWatch.Kind.CREATE;
        KINDS[AgentProtocol.EVENT_WRITE] = FileWatch.Kind.WRITE;
        KINDS[AgentProtocol.EVENT_REMOVE] = FileWatch.Kind.REMOVE;
        KINDS[AgentProtocol.EVENT_RENAME] = FileWatch.Kind.RENAME;
        KINDS[AgentProtocol.EVENT_CHMOD] = FileWatch.Kind.CHMOD;
    }
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final AgentChannel channel;
    private final String root;
    private final Predicate<String> internal;
    /** The hub's watch ids to the channel's (one id space with commands on the agent's side). */
    private final Map<Integer, Integer> channelIds = new ConcurrentHashMap<>();

    /**
     * @param internal the backend's own temporary paths (a file API write's temp file, renamed into place): never
     *                 reported; a rename from one is the {@code CREATE} of its target, as a write from outside the
     *                 workspace is
     */
    public AgentWatches(AgentChannel channel, Predicate<String> internal) {
        this(channel, WorkspacePaths.WORKSPACE, internal);
    }

    /** @param root where the agent sees the workspace ({@link SandboxHost#workspaceRoot()}) */
    AgentWatches(AgentChannel channel, String root, Predicate<String> internal) {
        this.channel = channel;
        this.root = root;
        this.internal = internal;
    }

    @Override
    public void start(int id, String path, boolean recursive, WatchHub.Sink sink) throws IOException {
        int channelId = channel.newId();
        channelIds.put(id, channelId);
        try {
            String inSandbox = WorkspacePaths.absolute(root, path);
            channel.watch(channelId, inSandbox, path, recursive, new AgentChannel.WatchEvents() {
                @Override
                public void events(byte[] records) {
                    decode(records, hiding(sink));
                }

                @Override
                public void overflow() {
                    sink.overflow();
                }

                @Override
                public void ended(String why) {
                    channelIds.remove(id);
                    sink.ended(why);
                }
            }, START_TIMEOUT);
        } catch (InterruptedException e) {
            channelIds.remove(id);
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting the watch", e);
        } catch (IOException e) {
            channelIds.remove(id);
            throw e;
        }
    }

    private WatchHub.Sink hiding(WatchHub.Sink sink) {
        return new WatchHub.Sink() {
            @Override
            public void event(FileWatch.Kind kind, String path, String from, boolean dir, long size, long mtime) {
                boolean to = internal.test(path);
                boolean fromInternal = !from.isEmpty() && internal.test(from);
                if (kind != FileWatch.Kind.RENAME) {
                    if (!to) {
                        sink.event(kind, path, from, dir, size, mtime);
                    }
                } else if (fromInternal && !to) {
                    sink.event(FileWatch.Kind.CREATE, path, "", dir, size, mtime);
                } else if (to && !fromInternal) {
                    sink.event(FileWatch.Kind.REMOVE, from, "", dir, 0, 0);
                } else if (!to) {
                    sink.event(kind, path, from, dir, size, mtime);
                }
            }

            @Override
            public void overflow() {
                sink.overflow();
            }

            @Override
            public void ended(String why) {
                sink.ended(why);
            }
        };
    }

    @Override
    public void stop(int id) {
        Integer channelId = channelIds.remove(id);
        if (channelId != null) {
            channel.unwatch(channelId);
        }
    }

    /**
     * Decodes one frame of records ({@code byte kind, byte dir, long size, long mtime, int length + path bytes,
     * int length + from-path bytes}) onto {@code sink}; what does not parse, or names a path that is not a clean
     * workspace-relative one, is dropped and reported as an overflow.
     */
    static void decode(byte[] p, WatchHub.Sink sink) {
        int i = 0;
        while (i < p.length) {
            if (p.length - i < 22) {
                sink.overflow();
                return;
            }
            int kind = p[i];
            boolean dir = p[i + 1] != 0;
            long size = readLong(p, i + 2);
            long mtime = readLong(p, i + 10);
            int lp = readInt(p, i + 18);
            if (lp < 0 || lp > p.length - i - 26) {
                sink.overflow();
                return;
            }
            String path = new String(p, i + 22, lp, StandardCharsets.UTF_8);
            int lf = readInt(p, i + 22 + lp);
            if (lf < 0 || lf > p.length - i - 26 - lp) {
                sink.overflow();
                return;
            }
            String from = new String(p, i + 26 + lp, lf, StandardCharsets.UTF_8);
            i += 26 + lp + lf;
            if (kind < 0 || kind >= KINDS.length || !clean(path) || !from.isEmpty() && !clean(from)
                    || (KINDS[kind] == FileWatch.Kind.RENAME) == from.isEmpty()) {
                sink.overflow();
                continue;
            }
            sink.event(KINDS[kind], path, from, dir, Math.max(0, size), Math.max(0, mtime));
        }
    }

    /** A workspace-relative path as this host writes them: no empty, dot or dot-dot segment, no NUL. */
    private static boolean clean(String path) {
        if (path.isEmpty() || path.indexOf('\0') >= 0) {
            return false;
        }
        for (String s : path.split("/", -1)) {
            if (s.isEmpty() || s.equals(".") || s.equals("..")) {
                return false;
            }
        }
        return true;
    }

    private static int readInt(byte[] b, int at) {
        return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
    }

    private static long readLong(byte[] b, int at) {
        return ((long) readInt(b, at) << 32) | (readInt(b, at + 4) & 0xffffffffL);
    }
}
