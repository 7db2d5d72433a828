package dev.sandbox4j.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The guides quote the example projects instead of carrying their own copies: every fenced block right after a
 * {@code <!-- quote: examples/... -->} marker in the README and docs/ must be whole lines of that file, verbatim.
 * CI builds and tests the examples (scripts/examples.sh), so what the guides show is what runs.
 */
class DocsQuoteExamplesTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern QUOTE = Pattern.compile(
            "<!-- quote: (\\S+) -->\\n```[a-z]*\\n(.*?)```", Pattern.DOTALL);

    @Test
    void everyQuotedBlock_isVerbatimInItsExampleFile() throws Exception {
        List<String> docs = List.of("README.md", "docs/spring.md", "docs/tools.md");
        List<String> quoted = new ArrayList<>();
        for (String doc : docs) {
            String text = Files.readString(ROOT.resolve(doc));
            Matcher m = QUOTE.matcher(text);
            while (m.find()) {
                Path file = ROOT.resolve(m.group(1));
                assertThat(file).as(doc + " quotes " + m.group(1)).exists();
                String source = "\n" + Files.readString(file);
                assertThat(source).as(doc + "'s quote of " + m.group(1) + " (update the guide from the file)")
                        .contains("\n" + m.group(2));
                quoted.add(doc + ": " + m.group(1));
                if (doc.equals("docs/spring.md") && m.group(1).endsWith("pom.xml")) {
                    assertThat(m.group(2)).as("the guide's pom is the example's, whole").isEqualTo(source.substring(1));
                }
            }
        }
        assertThat(quoted).as("the Spring guide quotes the example's pom and controller").contains(
                "docs/spring.md: examples/spring-boot-ai/pom.xml",
                "docs/spring.md: examples/spring-boot-ai/src/main/java/com/example/agent/AgentController.java");
        assertThat(quoted).anyMatch(q -> q.startsWith("README.md: examples/"));
    }
}
