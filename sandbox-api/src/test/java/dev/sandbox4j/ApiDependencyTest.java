package dev.sandbox4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** sandbox-api depends on the JDK only: its pom declares nothing but test scope, and its classes reference only java.*. */
class ApiDependencyTest {
    @Test
    void pom_declaresOnlyTestScopedDependencies() throws IOException {
        String pom = Files.readString(Path.of("pom.xml"));
        Matcher m = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL).matcher(pom);
        List<String> nonTest = new ArrayList<>();
        while (m.find()) {
            if (!m.group(1).contains("<scope>test</scope>")) {
                nonTest.add(m.group(1).trim());
            }
        }
        assertThat(nonTest).as("compile or runtime dependencies of sandbox-api").isEmpty();
    }

    @Test
    void classes_referenceOnlyJavaAndOwnPackages() throws IOException {
        Path classes = Path.of("target/classes");
        Set<String> foreign = new TreeSet<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".class")).collect(Collectors.toList())) {
                for (String ref : referencedTypes(file)) {
                    if (!ref.startsWith("java/") && !ref.startsWith("dev/sandbox4j/")) {
                        foreign.add(ref + " (in " + classes.relativize(file) + ")");
                    }
                }
            }
        }
        assertThat(foreign).as("types outside java.* referenced by sandbox-api").isEmpty();
    }

    /** Class names in a class file's constant pool: CONSTANT_Class entries and descriptors. */
    private static Set<String> referencedTypes(Path classFile) throws IOException {
        Set<String> out = new TreeSet<>();
        List<String> utf8 = new ArrayList<>();
        List<Integer> classIndexes = new ArrayList<>();
        try (InputStream raw = Files.newInputStream(classFile); DataInputStream in = new DataInputStream(raw)) {
            in.readInt();
            in.readUnsignedShort();
            in.readUnsignedShort();
            int count = in.readUnsignedShort();
            for (int i = 0; i < count; i++) {
                utf8.add(null);
            }
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> utf8.set(i, in.readUTF());
                    case 7 -> classIndexes.add(in.readUnsignedShort());
                    case 8, 16, 19, 20 -> in.readUnsignedShort();
                    case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();
                    case 5, 6 -> {
                        in.readLong();
                        i++;
                    }
                    case 15 -> {
                        in.readUnsignedByte();
                        in.readUnsignedShort();
                    }
                    default -> throw new IOException("unknown constant tag " + tag + " in " + classFile);
                }
            }
        }
        for (int index : classIndexes) {
            String name = utf8.get(index);
            out.add(name.startsWith("[") ? name.replaceAll("^\\[+L?|;$", "") : name);
        }
        Pattern descriptor = Pattern.compile("L([\\w/$]+)[;<]");
        for (String s : utf8) {
            if (s != null && (s.startsWith("(") || s.startsWith("L") || s.startsWith("["))) {
                Matcher m = descriptor.matcher(s);
                while (m.find()) {
                    out.add(m.group(1));
                }
            }
        }
        out.removeIf(n -> n.length() <= 1);
        return out;
    }
}
