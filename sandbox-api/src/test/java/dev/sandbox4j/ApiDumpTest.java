package dev.sandbox4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public API of sandbox-api, rendered as text and compared with the checked-in {@code api/sandbox-api.txt}: no
 * public type, method, constructor or constant changes without that file changing in the same commit, where a
 * reviewer sees it. After an intended change: {@code mvn -pl sandbox-api test -Dtest=ApiDumpTest
 * -Dsandbox4j.api.update=true}, then review and commit the file.
 */
class ApiDumpTest {
    private static final Path DUMP = Path.of("api/sandbox-api.txt");

    @Test
    void publicApi_matchesTheCheckedInDump() throws Exception {
        String now = dump();
        if (Boolean.getBoolean("sandbox4j.api.update")) {
            Files.createDirectories(DUMP.getParent());
            Files.writeString(DUMP, now, StandardCharsets.UTF_8);
        }
        assertThat(DUMP).as("the checked-in API dump (run with -Dsandbox4j.api.update=true to write it)").exists();
        String before = Files.readString(DUMP, StandardCharsets.UTF_8);
        assertThat(now).as("the public API changed: review the difference, then update " + DUMP
                + " (-Dsandbox4j.api.update=true)").isEqualTo(before);
    }

    @Test
    void sandboxApiHasAtMostItsBudgetOfPublicTypes() throws Exception {
        // a ratchet on the whole published surface (dev.sandbox4j and spi): issue 19's budget is 30 public top-level
        // types; nested public types (GrepResult.Skipped, SandboxSpec.Builder, ...) are counted apart so they cannot
        // grow unnoticed either. Both may shrink; raising either is a reviewed decision. Nested went from 5 to 10 with
        // the file watch (its event, kind, options and batch belong to it) and CodeResult.Status (was CodeStatus).
        // Top-level went from 30 to 31 with RawOutput (issue 36): a command's bytes, capped head+tail, need a value
        // of their own (head and tail apart, copies in and out); folded into ExecResult they would be four more
        // accessors a stream, and into Truncation a mutable array in a record.
        // The Forwarding* bases (issue 26) are counted apart: each mirrors one interface a Sandbox hands out and adds
        // no concept of its own; ForwardingTest pins that there is exactly one per such interface.
        // Nested went from 10 to 12 with brokered credentials (issue 28): NetworkPolicy.Credential and its Kind belong
        // to the policy that binds them to hosts, nested there rather than as a top-level concept.
        // Top-level went from 31 to 34 and nested from 12 to 16 with workspace sources (issue 35): the source, a mount
        // and the change set are three concepts a user names (each with its kind; Change reuses FileInfo for states).
        // Top-level went from 34 to 37 with processes found again by id (issue 32): the registry a shell hands out
        // (Processes), a command's state (ProcessInfo) and output read from a cursor (ProcessOutput); ExecHandle and
        // ExecResult cannot carry them (a handle is the caller's own, a result exists only at the end).
        // Top-level went from 37 to 38 with FileRules (issue 29): protected paths and refused links are one rule set that
        // a spec holds for every backend and a tool profile adds to (ToolConfig); as loose SandboxSpec fields there
        // would be no value for a profile to carry or merge.
        // Top-level went from 38 to 39 with terminals (issue 32): Terminal is the one value a request carries for them
        // (size, TERM, text or raw); as four ExecRequest fields it could not be validated or passed on as one.
        // Then to 41 with ports opened on the host (issue 32): the ports a sandbox hands out (Ports) and one opened
        // port (PortForward), which is closed on its own; its forwarding bases are counted apart.
        // Then to 43, and nested from 16 to 17, with snapshots (issue 31): the captured value (Snapshot) and the
        // interface users implement for S3, JDBC or Redis (SnapshotStore, with what it holds under an id,
        // SnapshotStore.Stored); the directory store stays package-private behind SnapshotStore.directory.
        // Then to 44 with AttachCredential (issue 31, reattach): a secret needs a type of its own (redacted toString,
        // constant-time equals, one way to its text); a String would print and compare like any.
        List<Class<?>> all = publicTypes();
        long forwarding = all.stream().filter(c -> c.getDeclaringClass() == null
                && c.getSimpleName().startsWith("Forwarding")).count();
        long topLevel = all.stream().filter(c -> c.getDeclaringClass() == null).count() - forwarding;
        long nested = all.size() - topLevel - forwarding;
        System.out.println("[api] public types in sandbox-api: " + topLevel + " top-level, " + nested + " nested, "
                + forwarding + " forwarding bases");
        assertThat(forwarding).isEqualTo(ForwardingTest.handedOut(Sandbox.class).size());
        assertThat(topLevel).isLessThanOrEqualTo(44);
        assertThat(nested).isLessThanOrEqualTo(17);
    }

    private static String dump() throws Exception {
        StringBuilder b = new StringBuilder();
        for (Class<?> c : publicTypes()) {
            b.append(header(c)).append('\n');
            List<String> members = new ArrayList<>();
            for (Field f : c.getDeclaredFields()) {
                if (isApi(f.getModifiers(), c)) {
                    members.add("  " + mods(f.getModifiers()) + f.getGenericType().getTypeName() + " " + f.getName());
                }
            }
            for (Constructor<?> k : c.getDeclaredConstructors()) {
                if (isApi(k.getModifiers(), c)) {
                    members.add("  " + mods(k.getModifiers()) + "<init>" + params(k));
                }
            }
            for (Method m : c.getDeclaredMethods()) {
                if (isApi(m.getModifiers(), c) && !m.isSynthetic() && !m.isBridge()) {
                    members.add("  " + mods(m.getModifiers()) + (m.isDefault() ? "default " : "")
                            + m.getGenericReturnType().getTypeName() + " " + m.getName() + params(m));
                }
            }
            members.stream().sorted().forEach(s -> b.append(s).append('\n'));
        }
        return b.toString();
    }

    private static String header(Class<?> c) {
        String kind = c.isAnnotation() ? "@interface" : c.isInterface() ? "interface" : c.isEnum() ? "enum"
                : c.isRecord() ? "record" : "class";
        String sup = c.getGenericSuperclass() == null || c.getSuperclass() == Object.class
                || c.isEnum() || c.isRecord() ? "" : " extends " + c.getGenericSuperclass().getTypeName();
        String ifs = c.getGenericInterfaces().length == 0 ? "" : (c.isInterface() ? " extends " : " implements ")
                + Arrays.stream(c.getGenericInterfaces()).map(t -> t.getTypeName()).collect(Collectors.joining(", "));
        return mods(c.getModifiers() & ~Modifier.INTERFACE & ~Modifier.ABSTRACT
                | (c.isInterface() ? 0 : c.getModifiers() & Modifier.ABSTRACT)) + kind + " " + c.getName() + sup + ifs;
    }

    private static boolean isApi(int mods, Class<?> owner) {
        return Modifier.isPublic(mods) || (Modifier.isProtected(mods) && !Modifier.isFinal(owner.getModifiers()));
    }

    private static String mods(int m) {
        String s = Modifier.toString(m & (Modifier.PUBLIC | Modifier.PROTECTED | Modifier.STATIC | Modifier.FINAL
                | Modifier.ABSTRACT));
        return s.isEmpty() ? "" : s + " ";
    }

    private static String params(Executable e) {
        return Arrays.stream(e.getGenericParameterTypes()).map(t -> t.getTypeName())
                .collect(Collectors.joining(", ", "(", ")"))
                + (e.getExceptionTypes().length == 0 ? "" : " throws " + Arrays.stream(e.getExceptionTypes())
                .map(Class::getName).sorted().collect(Collectors.joining(", ")));
    }

    /** Public types (top-level and nested, reachable from outside) of sandbox-api, sorted by name. */
    private static List<Class<?>> publicTypes() throws IOException, ClassNotFoundException {
        Path classes = Path.of("target/classes");
        TreeSet<String> names = new TreeSet<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path p : files.filter(p -> p.toString().endsWith(".class")).collect(Collectors.toList())) {
                String rel = classes.relativize(p).toString();
                if (!rel.endsWith("package-info.class") && !rel.endsWith("module-info.class")) {
                    names.add(rel.substring(0, rel.length() - 6).replace('/', '.'));
                }
            }
        }
        List<Class<?>> out = new ArrayList<>();
        for (String n : names) {
            Class<?> c = Class.forName(n, false, ApiDumpTest.class.getClassLoader());
            boolean visible = true;
            for (Class<?> k = c; k != null; k = k.getDeclaringClass()) {
                visible &= Modifier.isPublic(k.getModifiers()) && !k.isAnonymousClass() && !k.isLocalClass();
            }
            if (visible) {
                out.add(c);
            }
        }
        return out;
    }
}
