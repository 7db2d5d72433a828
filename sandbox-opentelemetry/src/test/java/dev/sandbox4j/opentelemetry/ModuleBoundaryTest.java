package dev.sandbox4j.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The module brings the OpenTelemetry API and sandbox-api, nothing else: its pom's compile dependencies are those
 * two, and its classes refer to no SDK class and no backend.
 */
class ModuleBoundaryTest {
    private static final Pattern TYPE =
            Pattern.compile("(io/opentelemetry/[A-Za-z0-9_/$]+|dev/sandbox4j/[A-Za-z0-9_/$]+)");

    @Test
    void compileDependencies_areTheOpenTelemetryApiAndSandboxApiOnly() throws Exception {
        var pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of("pom.xml").toFile());
        List<String> compile = new ArrayList<>();
        NodeList all = pom.getDocumentElement().getChildNodes();
        for (int i = 0; i < all.getLength(); i++) {
            if (all.item(i) instanceof Element e && e.getTagName().equals("dependencies")) {
                NodeList deps = e.getElementsByTagName("dependency");
                for (int j = 0; j < deps.getLength(); j++) {
                    Element d = (Element) deps.item(j);
                    NodeList scope = d.getElementsByTagName("scope");
                    String s = scope.getLength() == 0 ? "compile" : scope.item(0).getTextContent().trim();
                    if (!s.equals("test")) {
                        compile.add(d.getElementsByTagName("artifactId").item(0).getTextContent().trim() + ":" + s);
                    }
                }
            }
        }
        assertThat(compile).containsExactlyInAnyOrder("sandbox-api:compile", "opentelemetry-api:compile");
    }

    @Test
    void classes_referToTheApiOnly() throws IOException {
        TreeSet<String> referred = new TreeSet<>();
        try (Stream<Path> files = Files.walk(Path.of("target/classes"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".class"))
                    .filter(p -> !p.endsWith("package-info.class")).toList()) {
                Matcher m = TYPE.matcher(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
                while (m.find()) {
                    referred.add(m.group(1).replaceAll("/[A-Z][^/]*$", ""));
                }
            }
        }
        assertThat(referred).isNotEmpty().allSatisfy(pkg -> assertThat(pkg).matches(
                "io/opentelemetry/(api|context)(/.*)?|dev/sandbox4j(/spi|/opentelemetry)?"));
        assertThat(referred).contains("io/opentelemetry/api/trace", "io/opentelemetry/api/metrics", "dev/sandbox4j");
    }
}
