package dev.sandbox4j;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/** {@link SnapshotStore#directory}: {@code ID.snap} files, each written as a hidden temporary and renamed in. */
final class DirectorySnapshotStore implements SnapshotStore {
    static final Pattern ID = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}");
    private static final String SUFFIX = ".snap";

    private final Path dir;
    private final long maxBytes;

    DirectorySnapshotStore(Path dir, long maxBytes) {
        this.dir = dir.toAbsolutePath().normalize();
        this.maxBytes = maxBytes;
    }

    static SnapshotStore defaultStore() {
        String env = System.getenv("SANDBOX4J_SNAPSHOTS");
        if (env != null && !env.isBlank()) {
            return new DirectorySnapshotStore(Path.of(env), Long.MAX_VALUE);
        }
        String xdg = System.getenv("XDG_DATA_HOME");
        Path base = xdg != null && xdg.startsWith("/") ? Path.of(xdg)
                : Path.of(System.getProperty("user.home"), ".local", "share");
        return new DirectorySnapshotStore(base.resolve("sandbox4j").resolve("snapshots"), Long.MAX_VALUE);
    }

    @Override
    public void put(String id, InputStream data) throws IOException {
        Path target = file(id);
        Files.createDirectories(dir);
        try {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        } catch (UnsupportedOperationException e) {
            // a file system without POSIX modes: nothing to tighten
        }
        Path tmp = dir.resolve(".put-" + UUID.randomUUID() + ".tmp");
        try {
            try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE)) {
                data.transferTo(out);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    @Override
    public Optional<InputStream> get(String id) throws IOException {
        try {
            return Optional.of(Files.newInputStream(file(id), LinkOption.NOFOLLOW_LINKS));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    @Override
    public boolean delete(String id) throws IOException {
        return Files.deleteIfExists(file(id));
    }

    @Override
    public Optional<Stored> stat(String id) throws IOException {
        try {
            BasicFileAttributes a = Files.readAttributes(file(id), BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            return a.isRegularFile() ? Optional.of(new Stored(id, a.size(), a.lastModifiedTime().toInstant()))
                    : Optional.empty();
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    @Override
    public List<Stored> list() throws IOException {
        List<Stored> all = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return all;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                String id = name.substring(0, name.length() - SUFFIX.length());
                if (ID.matcher(id).matches()) {
                    stat(id).ifPresent(all::add);
                }
            }
        }
        return all;
    }

    @Override
    public long maxBytes() {
        return maxBytes;
    }

    private Path file(String id) {
        return dir.resolve(SnapshotStore.checkId(id) + SUFFIX);
    }

    @Override
    public String toString() {
        return "directory store " + dir;
    }
}
