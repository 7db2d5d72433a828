package dev.sandbox4j.memory;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's Java snippets are code users copy: each one that uses only sandbox-api is compiled against it, as the
 * body of a method with the variables the snippets assume ({@code sandbox}, {@code inputStream}, {@code outputStream},
 * {@code code}). Snippets that need LangChain4j, Spring or the kit are compiled by their own modules' tests
 * (ReadmeExampleTest here runs the tool example).
 */
class ReadmeSnippetsTest {
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL);
    private static final List<String> OTHER_MODULES =
            List.of("@Tool", "AiServices", "chatClient", "SandboxConformance", "SubAgent");

    @Test
    void readmeSnippets_compileAgainstTheApi(@TempDir Path out) throws IOException {
        String readme = Files.readString(Path.of("../README.md"), StandardCharsets.UTF_8);
        Matcher m = JAVA_BLOCK.matcher(readme);
        List<JavaFileObject> sources = new ArrayList<>();
        int block = 0;
        while (m.find()) {
            block++;
            String body = m.group(1);
            if (OTHER_MODULES.stream().anyMatch(body::contains)) {
                continue;
            }
            // a block quoted from an example project (<!-- quote: path -->) is that project's code, compiled by its
            // own build and checked verbatim against it by the starter's DocsQuoteExamplesTest
            String before = readme.substring(Math.max(0, m.start() - 200), m.start());
            if (before.contains("<!-- quote:") && before.lastIndexOf("<!-- quote:") > before.lastIndexOf("```")) {
                continue;
            }
            int line = readme.substring(0, m.start()).split("\n", -1).length + 1;
            String name = "Snippet" + block + "Line" + line;
            // a snippet that opens its own sandbox gets no parameter of that name
            String params = (body.contains("Sandbox sandbox =") ? "" : "Sandbox sandbox, ")
                    + "InputStream inputStream, OutputStream outputStream, String code";
            String src = "package readme;\nimport dev.sandbox4j.*;\nimport java.io.*;\nimport java.time.*;\n"
                    + "import java.util.*;\nclass " + name + " {\n    void run(" + params + ") throws Exception {\n"
                    + body + "    }\n}\n";
            sources.add(new SimpleJavaFileObject(URI.create("string:///readme/" + name + ".java"),
                    JavaFileObject.Kind.SOURCE) {
                @Override
                public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                    return src;
                }
            });
        }
        assertThat(sources).as("README java blocks that use sandbox-api only").hasSizeGreaterThanOrEqualTo(5);

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> options = List.of("-proc:none", "-classpath", classPath, "-d", out.toString());
        boolean ok = javac.getTask(null, null, diagnostics, options, null, sources).call();
        String errors = diagnostics.getDiagnostics().stream()
                .map(d -> d.getSource().getName() + ":" + d.getLineNumber() + ": " + d.getMessage(null))
                .collect(Collectors.joining("\n"));
        assertThat(ok).as("README snippets compile (line numbers are inside the wrapper, 7 lines before the "
                + "snippet):%n%s", errors).isTrue();
    }
}
