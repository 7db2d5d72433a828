package dev.sandbox4j.bench;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.Sandboxes;
import org.openjdk.jmh.annotations.Benchmark;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** The in-memory backend's whole life (open, one command, write and read a file, close) against a floor. */
public class InMemory {
    @Benchmark
    public String memory() {
        try (Sandbox s = Sandboxes.open("memory")) {
            ExecResult r = s.shell().run("echo hello");
            s.files().write("notes/a.txt", "hello\n");
            String text = s.files().readText("notes/a.txt");
            if (!r.stdout().equals(text)) {
                throw new IllegalStateException(r.stdout() + " != " + text);
            }
            return text;
        }
    }

    /** The floor: a fake sandbox that is a HashMap of files and a switch over two commands. */
    static final class HashMapFake implements AutoCloseable {
        final Map<String, byte[]> files = new HashMap<>();

        String run(String command) {
            if (command.startsWith("echo ")) {
                return command.substring(5) + "\n";
            }
            if (command.equals("true")) {
                return "";
            }
            throw new IllegalArgumentException(command);
        }

        void write(String path, String text) {
            files.put(path, text.getBytes(StandardCharsets.UTF_8));
        }

        String read(String path) {
            return new String(files.get(path), StandardCharsets.UTF_8);
        }

        @Override
        public void close() {
            files.clear();
        }
    }

    @Benchmark
    public String hashMapFake() {
        try (HashMapFake s = new HashMapFake()) {
            String out = s.run("echo hello");
            s.write("notes/a.txt", "hello\n");
            String text = s.read("notes/a.txt");
            if (!out.equals(text)) {
                throw new IllegalStateException(out + " != " + text);
            }
            return text;
        }
    }
}
