package dev.sandbox4j.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.Edit;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.GrepMatch;
import dev.sandbox4j.GrepOptions;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad-input fuzzing of the FileSystem API: random paths (dot segments, NUL, long components, Unicode, lone
 * surrogates, symbolic-link chains made by sandboxed code) through every call. Every call must return or throw a
 * SandboxException; no call may read or change a canary planted outside the workspace.
 */
class FuzzTest {
    private static final String MARK = "CANARY-" + UUID.randomUUID();

    /** Segments the generator draws from; the links are made inside the sandbox by {@link #links}. */
    private static final String[] SEGMENTS = {
        ".", "..", "", "a", "b", "sub", "f.txt", "root", "up", "chain", "loop1", "loop2", "canary", "hostcanary",
        "esc", "dangling", "fifo", "x".repeat(255), "y".repeat(256), "z".repeat(1000), "ü", "日本語", "😀", "e\u0301",
        "\u0000", "a\u0000b", "\uD800", "\uDFFF", "x\uDBFFy", "\uFFFE", "%2e%2e", "..\\..", "~", " ", "\n", "\t",
        "*", "?", "[", "{a,b}", "...", ".hidden", "-rf", "$(id)", "`id`", "'", "\"", ";", "/workspace", "/",
        "//", "/etc", "/proc", "self", "fd", "1"
    };

    static int n(String backend) {
        boolean agent = backend.equals("docker") || backend.equals(Rel.KUBERNETES); // file calls through the agent
        return agent ? Rel.size("fuzz." + backend, 300, 10_000) : Rel.size("fuzz." + backend, 2_000, 10_000);
    }

    /** Symbolic-link chains (and a FIFO) made by sandboxed code, pointing out of the workspace in every way. */
    static String links(String hostCanary, String jailCanary) {
        return "cd /workspace 2>/dev/null || true; mkdir -p sub/deep; "
                + "ln -sfn / root; ln -sfn .. up; ln -sfn up/up/up/up/up/etc chain; ln -sfn loop2 loop1; "
                + "ln -sfn loop1 loop2; ln -sfn " + jailCanary + " canary; ln -sfn " + hostCanary + " hostcanary; "
                + "ln -sfn ../../../../.. sub/deep/esc; ln -sfn sub/deep/esc esc; ln -sfn /nonexistent dangling; "
                + "ln -sfn /proc/self/root sub/procroot; rm -f fifo; mkfifo fifo 2>/dev/null; "
                + "echo seed > f.txt; echo seed > sub/f.txt; true";
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "local", "docker", Rel.KUBERNETES})
    void randomPathsThroughEveryCall(String backend) throws Exception {
        Rel.requireBackend(backend);
        int n = n(backend);
        long seed = Long.getLong("reliability.seed", System.nanoTime());
        Random rnd = new Random(seed);
        // A canary outside the workspace on the host (what a local jail's host-side file code could reach) ...
        Path canaryDir = Files.createTempDirectory("sandbox4j-rel-canary-");
        Path hostCanary = canaryDir.resolve("canary.txt");
        Files.writeString(hostCanary, MARK + " host\n");
        FileTime mtime = Files.getLastModifiedTime(hostCanary);
        Set<String> tmpBefore = names(Rel.TMP);
        Set<String> rootBefore = names(Path.of("/"));
        // ... and one outside the workspace inside the sandbox (container /tmp, jail /tmp).
        String jailCanary = "/tmp/canary.txt";
        Map<String, Integer> kinds = new TreeMap<>();
        List<String> bad = new ArrayList<>();
        List<String> internal = new ArrayList<>();
        int calls = 0;
        boolean shell = !backend.equals("memory");
        String jailCanaryAfter = "";
        SandboxSpec spec = SandboxSpec.builder().commandTimeout(Duration.ofSeconds(30)).build();
        long t0 = System.nanoTime();
        try (Sandbox s = Rel.open(backend, spec)) {
            if (shell) {
                s.shell().run("echo '" + MARK + " jail' > " + jailCanary);
                s.shell().run(links(hostCanary.toString(), jailCanary));
            } else {
                s.files().write("f.txt", "seed\n");
                s.files().write("sub/f.txt", "seed\n");
            }
            edgeCases(s, kinds, bad);
            for (int i = 0; i < n; i++) {
                if (shell && i > 0 && i % 250 == 0) {
                    s.shell().run(links(hostCanary.toString(), jailCanary)); // the fuzz deletes and moves links
                }
                String p = randomPath(rnd);
                String q = randomPath(rnd);
                int op = rnd.nextInt(20);
                calls++;
                try {
                    Object out = call(s, op, p, q, rnd);
                    String text = String.valueOf(out);
                    if (text.contains(MARK)) {
                        bad.add("ESCAPE op " + op + " path " + show(p) + " returned the canary");
                    }
                    kinds.merge("returned", 1, Integer::sum);
                } catch (SandboxException e) {
                    kinds.merge(e.kind().code(), 1, Integer::sum);
                    if (e.kind() == dev.sandbox4j.ErrorKind.INTERNAL && internal.size() < 5) {
                        internal.add("op " + op + " " + show(p) + " / " + show(q) + ": " + e.getMessage());
                    }
                    if (e.getMessage().contains(MARK)) {
                        bad.add("ESCAPE op " + op + " path " + show(p) + " message carries the canary");
                    }
                } catch (Throwable e) {
                    kinds.merge("OTHER " + e.getClass().getSimpleName(), 1, Integer::sum);
                    if (bad.size() < 30) {
                        bad.add("op " + op + " path " + show(p) + " / " + show(q) + " threw " + e);
                    }
                }
            }
            if (shell) {
                jailCanaryAfter = s.shell().run("cat " + jailCanary).stdout();
            }
        }
        long took = System.nanoTime() - t0;
        String hostAfter = Files.readString(hostCanary);
        boolean mtimeSame = Files.getLastModifiedTime(hostCanary).equals(mtime);
        Set<String> canaryDirNow = names(canaryDir);
        Set<String> segs = Set.of(SEGMENTS).stream().map(x -> x.replace("/", "")).collect(Collectors.toSet());
        Set<String> newInTmp = names(Rel.TMP);
        newInTmp.removeAll(tmpBefore);
        newInTmp.retainAll(segs);
        Set<String> newInRoot = names(Path.of("/"));
        newInRoot.removeAll(rootBefore);
        Files.delete(hostCanary);
        Files.delete(canaryDir);
        Rel.report("fuzz " + backend + ": " + calls + " calls with random paths in " + Rel.ms(took) + " (seed " + seed
                + "): outcomes " + kinds + "; host canary unchanged " + (hostAfter.equals(MARK + " host\n")
                && mtimeSame) + ", canary dir " + canaryDirNow + ", jail canary unchanged "
                + (!shell || jailCanaryAfter.equals(MARK + " jail\n")) + ", fuzz names new in host "
                + Rel.TMP + ": " + newInTmp + ", in /: " + newInRoot + "; problems " + bad.size()
                + (bad.isEmpty() ? "" : " " + bad.subList(0, Math.min(20, bad.size()))));
        assertThat(hostAfter).isEqualTo(MARK + " host\n");
        assertThat(mtimeSame).isTrue();
        assertThat(canaryDirNow).containsExactly("canary.txt");
        if (shell) {
            assertThat(jailCanaryAfter).isEqualTo(MARK + " jail\n");
        }
        assertThat(newInTmp).isEmpty();
        assertThat(newInRoot).isEmpty();
        // FUZZ-INTERNAL-docker (fixed): `internal` means a bug; no bad path may end there.
        assertThat(internal).as(backend + ": bad paths ending in kind `internal`").isEmpty();
        List<String> escapes = bad.stream().filter(b -> b.startsWith("ESCAPE")).collect(Collectors.toList());
        assertThat(escapes).as("escapes").isEmpty();
        // Anything but a SandboxException, for a bad path or a bad non-path argument (glob, regex, range, depth,
        // empty edit), fails the build. Bad non-path arguments were FS-ARGS-UNTYPED until INVALID_ARGUMENT existed.
        List<String> untyped = bad.stream().filter(b -> b.startsWith("op ") || b.startsWith("edge"))
                .collect(Collectors.toList());
        assertThat(untyped).as("untyped failures for bad paths and arguments").isEmpty();
        assertThat(kinds.getOrDefault("invalid_argument", 0)).as("edge cases typed invalid_argument")
                .isGreaterThanOrEqualTo(11);
    }

    /** Bad non-path arguments: empty or malformed globs, a malformed regex, negative ranges and depths. */
    static void edgeCases(Sandbox s, Map<String, Integer> kinds, List<String> bad) {
        var fs = s.files();
        Map<String, Runnable> cases = new java.util.LinkedHashMap<>();
        cases.put("find(., \"\")", () -> fs.find("", ".", List.of()));
        cases.put("find(., \"[\")", () -> fs.find("[", ".", List.of()));
        cases.put("find(., \"{a\")", () -> fs.find("{a", ".", List.of()));
        cases.put("find(., *, [\"\"])", () -> fs.find("*", ".", List.of("")));
        cases.put("grep(\"(\")", () -> fs.grep("(", ".", GrepOptions.defaults()));
        cases.put("readText(f.txt, 0, -1)", () -> fs.readText("f.txt", 0, -1));
        cases.put("readText(f.txt, 5, 2)", () -> fs.readText("f.txt", 5, 2));
        cases.put("readBytes(f.txt, -1, 5)", () -> fs.readBytes("f.txt", -1, 5));
        cases.put("readBytes(f.txt, 0, -1)", () -> fs.readBytes("f.txt", 0, -1));
        cases.put("list(., 0)", () -> fs.list(".", 0));
        cases.put("list(., -1)", () -> fs.list(".", -1));
        cases.put("replace(f.txt, \"\", x)", () -> fs.replace("f.txt", "", "x"));
        cases.put("edit(f.txt, [])", () -> fs.edit("f.txt", List.of()));
        for (Map.Entry<String, Runnable> c : cases.entrySet()) {
            try {
                c.getValue().run();
                kinds.merge("returned", 1, Integer::sum);
            } catch (SandboxException e) {
                kinds.merge(e.kind().code(), 1, Integer::sum);
            } catch (Throwable e) {
                kinds.merge("OTHER " + e.getClass().getSimpleName(), 1, Integer::sum);
                bad.add("edge " + c.getKey() + " threw " + e);
            }
        }
    }

    static Set<String> names(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(HashSet::new));
        } catch (Exception e) {
            return new HashSet<>();
        }
    }

    static String show(String p) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : p.toCharArray()) {
            if (c < 0x20 || (c >= 0xD800 && c <= 0xDFFF) || c == 0xFFFE) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        String s = b.append('"').toString();
        return s.length() > 120 ? s.substring(0, 100) + "...(" + p.length() + " chars)\"" : s;
    }

    static String randomPath(Random rnd) {
        int k = rnd.nextInt(10);
        if (k == 0) {
            return SEGMENTS[rnd.nextInt(SEGMENTS.length)];
        }
        StringBuilder b = new StringBuilder();
        if (rnd.nextInt(6) == 0) {
            b.append(rnd.nextBoolean() ? "/workspace/" : "/");
        }
        int parts = 1 + rnd.nextInt(6);
        for (int i = 0; i < parts; i++) {
            if (i > 0) {
                b.append(rnd.nextInt(12) == 0 ? "//" : "/");
            }
            if (rnd.nextInt(8) == 0) {
                // a random code point, any plane, surrogates included
                b.appendCodePoint(rnd.nextInt(8) == 0 ? 0xD800 + rnd.nextInt(0x800) : rnd.nextInt(0x10FFFF));
            } else {
                b.append(SEGMENTS[rnd.nextInt(SEGMENTS.length)]);
            }
        }
        if (rnd.nextInt(10) == 0) {
            b.append('/');
        }
        return b.toString();
    }

    static Object call(Sandbox s, int op, String p, String q, Random rnd) {
        var fs = s.files();
        switch (op) {
            case 0:
                return fs.readText(p);
            case 1:
                return fs.readText(p, 1 + rnd.nextInt(3), rnd.nextBoolean() ? -1 : 5);
            case 2:
                return new String(fs.readBytes(p), StandardCharsets.UTF_8);
            case 3:
                return new String(fs.readBytes(p, rnd.nextInt(10), 1 + rnd.nextInt(64)), StandardCharsets.UTF_8);
            case 4: {
                ByteArrayOutputStream sink = new ByteArrayOutputStream();
                fs.readTo(p, sink);
                return sink.toString(StandardCharsets.UTF_8);
            }
            case 5:
                fs.write(p, "fuzz");
                return "";
            case 6:
                fs.write(p, new ByteArrayInputStream(new byte[] {1, 2, 3}));
                return "";
            case 7:
                fs.append(p, "more");
                return "";
            case 8: {
                FileInfo i = fs.stat(p);
                return i;
            }
            case 9:
                return fs.exists(p);
            case 10: {
                int depth = 1 + rnd.nextInt(4);
                return rnd.nextBoolean() ? fs.list(p, depth) : fs.listVisible(p, depth);
            }
            case 11:
                return fs.find(rnd.nextBoolean() ? "**" : "*.txt", p, List.of());
            case 12: {
                List<GrepMatch> m = fs.grep("CANARY|seed|fuzz", p, GrepOptions.defaults()).matches();
                return m;
            }
            case 13:
                fs.mkdirs(p);
                return "";
            case 14:
                if (rnd.nextBoolean()) {
                    fs.moveReplacing(p, q);
                } else {
                    fs.move(p, q);
                }
                return "";
            case 15:
                if (rnd.nextBoolean()) {
                    fs.copyReplacing(p, q);
                } else {
                    fs.copy(p, q);
                }
                return "";
            case 16:
                if (rnd.nextBoolean()) {
                    fs.deleteRecursively(p);
                } else {
                    fs.delete(p);
                }
                return "";
            case 17:
                return fs.replace(p, "seed", "SEED");
            case 18:
                return rnd.nextBoolean() ? fs.previewEdit(p, List.of(new Edit("fuzz", "zzuf")))
                        : fs.edit(p, List.of(new Edit("fuzz", "zzuf")));
            default:
                return fs.find(p, ".", List.of(q));
        }
    }
}
