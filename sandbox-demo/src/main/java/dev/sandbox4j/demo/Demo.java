package dev.sandbox4j.demo;

import dev.sandbox4j.CodeRequest;
import dev.sandbox4j.CodeResult;
import dev.sandbox4j.Edit;
import dev.sandbox4j.EditResult;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.FileWatch;
import dev.sandbox4j.GrepMatch;
import dev.sandbox4j.GrepResult;
import dev.sandbox4j.Language;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxInfo;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.spi.SandboxProvider;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A tour of sandbox4j on this machine's default backend: what an agent's tools would do, step by step.
 * Run it with {@code scripts/demo.sh}; name a backend with {@code -Dsandbox4j.provider=docker}.
 */
public final class Demo {
    private Demo() {
    }

    /**
     * The default limits hold, or open refuses (UNSUPPORTED, naming what to change): on such a host the tour goes on
     * with the limits that do hold, and says so.
     */
    private static Sandbox openShowingLimits(SandboxSpec spec) {
        try {
            return Sandboxes.open(spec);
        } catch (SandboxException e) {
            if (e.kind() != dev.sandbox4j.ErrorKind.UNSUPPORTED) {
                throw e;
            }
            System.out.println("\n== The default limits cannot all hold here, so open() refused:\n  " + e.getMessage());
            System.out.println("  Going on with bestEffortLimits(true): info() reports what holds.");
            return Sandboxes.open(spec.toBuilder().bestEffortLimits(true).build());
        }
    }

    public static void main(String[] args) {
        System.out.println("== Backends on this machine");
        for (SandboxProvider p : Sandboxes.providers()) {
            Optional<String> why = p.unavailableReason();
            System.out.printf("  %-7s priority %4d  %s  %s%n", p.name(), p.priority(),
                    why.isEmpty() ? "available  " : "unavailable", why.orElse(""));
        }
        SandboxSpec spec = SandboxSpec.builder()
                .commandTimeout(Duration.ofSeconds(20))
                .file("app/greet.py", "def greet(name):\n    return 'Hello, ' + name\n\nprint(greet('world'))\n")
                .build();
        try (Sandbox sandbox = openShowingLimits(spec)) {
            SandboxInfo info = sandbox.info();
            System.out.println("\n== Opened " + info.id() + " on '" + info.backend() + "'");
            System.out.println("  features: " + info.features());
            System.out.println("  limits in force: " + info.limits());

            step("A shell command: who am I, and where?");
            show(sandbox.shell().run("id; pwd; ls -la"));

            step("Python, from the file the spec put in the workspace");
            show(sandbox.shell().run("python3 app/greet.py"));

            step("Edit the file: replace() must match exactly once");
            EditResult edit = sandbox.files().replace("app/greet.py", "'Hello, '", "'Hi there, '");
            System.out.print(edit.diff());
            show(sandbox.shell().run("python3 app/greet.py"));
            try {
                sandbox.files().replace("app/greet.py", "e", "E");
            } catch (SandboxException e) {
                System.out.println("  replace(\"e\") refused: [" + e.code() + "] " + e.getMessage());
            }

            step("A multi-edit previewed: a diff, nothing changed");
            EditResult dry = sandbox.files().previewEdit("app/greet.py",
                    List.of(new Edit("def greet", "def salute"), new Edit("print(greet", "print(salute")));
            System.out.print(dry.diff());

            step("Run code in a language, with a status agents understand");
            for (Language language : sandbox.code().languages()) {
                String code = switch (language) {
                    case PYTHON -> "import sys; print(sum(range(10)), sys.version.split()[0])";
                    case JAVASCRIPT -> "console.log([1, 2, 3].map(x => x * 2).join(','), process.version)";
                    case BASH -> "echo \"bash $BASH_VERSION\"";
                };
                CodeResult r = sandbox.code().run(language, code);
                System.out.printf("  %-10s %-9s %s", language.id(), r.status().code(), r.stdout());
            }
            CodeResult crash = sandbox.code().run(CodeRequest.of(Language.PYTHON, "1/0"));
            System.out.println("  python 1/0 -> " + crash.status().code() + ", exit " + crash.exitCode());

            step("Search the workspace");
            GrepResult found = sandbox.files().grep("greet|salute", "");
            for (GrepMatch m : found.matches()) {
                System.out.println("  " + m.path() + ":" + m.lineNumber() + ": " + m.line());
            }
            System.out.println("  complete: " + found.isComplete() + " (skipped " + found.skippedCount()
                    + ", truncated " + found.truncated() + ", timed out " + found.timedOut() + ")");

            step("Wait for the file a background job writes, and watch what it changes");
            try (FileWatch watch = sandbox.files().watch("", FileWatch.Options.defaults().withIncludes(
                    List.of("out/**")));
                 ExecHandle job = sandbox.shell().start(ExecRequest.shell(
                         "mkdir -p out && sleep 0.5 && echo '{\"ok\": true}' > out/result.json; sleep 30"))) {
                Optional<FileWatch.Event> done = sandbox.files().waitFor("out/result.json", FileWatch.Kind.WRITE,
                        Duration.ofSeconds(20));
                System.out.println("  waitFor -> " + done.map(e -> e.kind().code() + " " + e.path() + ", "
                        + e.size() + " bytes").orElse("nothing"));
                for (FileWatch.Event e : watch.poll(0, Duration.ZERO).events()) {
                    System.out.println("  watch  " + e.seq() + " " + e.kind().code() + " " + e.path());
                }
                System.out.println("  the job is still running: " + job.isAlive());
            }

            step("A command that floods its output: the result keeps the head and the tail");
            ExecResult flood = sandbox.shell().run(ExecRequest.shell("seq 1 2000000").withOutputLimit(40));
            System.out.println("  printed " + flood.stdoutTruncation().totalBytes() + " bytes; kept:");
            System.out.println(indent(flood.stdout()));

            step("A command that hangs and hides children: the timeout kills the whole tree");
            ExecResult hung = sandbox.shell().run(ExecRequest.shell(
                    "setsid sh -c 'sleep 30; touch /tmp/survivor' & echo started; sleep 60")
                    .withTimeout(Duration.ofSeconds(1)));
            System.out.println("  status " + hung.status().code() + " after " + hung.duration().toMillis()
                    + " ms, output: " + hung.stdout().trim());

            step("Escape attempts");
            show(sandbox.shell().run("cat /etc/shadow; ls /home /root; ip addr 2>/dev/null || cat /proc/net/dev"));
            sandbox.shell().run("ln -sf /etc/passwd leak.txt");
            try {
                sandbox.files().readText("leak.txt");
            } catch (SandboxException e) {
                System.out.println("  files().readText(\"leak.txt\" -> /etc/passwd) refused: [" + e.code() + "] "
                        + e.getMessage());
            }
            try {
                sandbox.files().readText("../../etc/hostname");
            } catch (SandboxException e) {
                System.out.println("  files().readText(\"../../etc/hostname\") refused: [" + e.code() + "] "
                        + e.getMessage());
            }
        } catch (SandboxException e) {
            System.out.println("\nCould not run the demo: [" + e.code() + "] " + e.getMessage());
            System.exit(1);
        }
        System.out.println("\n== Closed: every process, mount and temp directory of the sandbox is gone.");
    }

    private static void step(String title) {
        System.out.println("\n-- " + title);
    }

    private static void show(ExecResult r) {
        System.out.print(indent(r.stdout()));
        if (!r.stderr().isBlank()) {
            System.out.print(indent("stderr: " + r.stderr()));
        }
        System.out.println("  -> " + r.status().code() + ", exit " + r.exitCode() + ", " + r.duration().toMillis()
                + " ms");
    }

    private static String indent(String text) {
        StringBuilder out = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            if (!line.isEmpty()) {
                out.append("    ").append(line).append('\n');
            }
        }
        return out.toString();
    }
}
