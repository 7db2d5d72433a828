package dev.sandbox4j.testing;

import static dev.sandbox4j.testing.Checks.expectError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Feature;
import dev.sandbox4j.ProcessInfo;
import dev.sandbox4j.ProcessOutput;
import dev.sandbox4j.Processes;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.Terminal;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Terminals ({@link ExecRequest#withTerminal}, {@link Feature#TERMINAL}): a program sees a terminal of the asked size
 * and {@code TERM}; a REPL and a prompt are driven through {@link Processes} by id; a resize reaches the program;
 * text mode strips control sequences and the alternate screen; Ctrl-C interrupts the foreground job only; a timeout
 * kills the whole tree; without the feature a typed refusal that runs nothing.
 */
public interface TerminalContract extends ConformanceSupport {

    @Test
    @Requires({Feature.SHELL, Feature.TERMINAL})
    default void terminal_programSeesATerminalOfItsSizeAndType(Sandbox sandbox) {
        ExecResult r = sandbox.shell().run(ExecRequest.shell("test -t 0 && test -t 1 && test -t 2 && echo tty; "
                + "stty size; echo \"$TERM\"; echo to-stderr >&2").withTerminal(Terminal.of(100, 30).withType("vt100")));
        assertThat(r.exitCode()).as(r.stderr()).isZero();
        assertThat(r.stdout()).isEqualTo("tty\n30 100\nvt100\nto-stderr\n");
        assertThat(r.stderr()).as("a terminal is one stream").isEmpty();
        ExecResult piped = sandbox.shell().run("test -t 1 && echo tty || echo pipe");
        assertThat(piped.stdout()).as("without a terminal: pipes, as before").isEqualTo("pipe\n");
    }

    @Test
    @Requires({Feature.SHELL, Feature.TERMINAL})
    default void terminal_stdinIsTyped_andItsEndIsCtrlD(Sandbox sandbox) {
        ExecResult r = sandbox.shell().run(ExecRequest.shell("cat; echo done").withStdin("hello\n")
                .withTerminal(80, 24).withTimeout(Duration.ofSeconds(20)));
        assertThat(r.status()).as("the end of stdin reaches cat as the terminal's end of input")
                .isEqualTo(ExecStatus.COMPLETED);
        assertThat(r.stdout()).as("the terminal's echo, then cat's copy").isEqualTo("hello\nhello\ndone\n");
    }

    @Test
    @Requires({Feature.SHELL, Feature.TERMINAL, Feature.PROCESS_REGISTRY})
    default void terminal_pythonReplDrivenThroughSeveralCalls(Sandbox sandbox) {
        Processes p = sandbox.shell().processes();
        ProcessInfo repl = p.start(ExecRequest.argv("python3", "-q", "-i").withTerminal(80, 24));
        ProcessOutput o = readUntil(p, repl.id(), 0, ">>> ");
        p.writeStdin(repl.id(), "x = 41\n");
        o = readUntil(p, repl.id(), o.next(), ">>> ");
        p.writeStdin(repl.id(), "print(x + 1)\n");
        o = readUntil(p, repl.id(), o.next(), ">>> ");
        assertThat(o.text()).as("state kept across calls").contains("42\n");
        p.writeStdin(repl.id(), "def broken(:\n");
        o = readUntil(p, repl.id(), o.next(), ">>> ");
        assertThat(o.text()).contains("SyntaxError");
        p.writeStdin(repl.id(), "exit()\n");
        ProcessOutput end = p.read(repl.id(), o.next(), Duration.ofSeconds(20));
        assertThat(end.running()).isFalse();
        assertThat(end.exitCode()).isZero();
        assertThat(p.read(repl.id(), 0, Duration.ZERO).text()).as("text mode: no control sequences")
                .doesNotContain("\u001b").doesNotContain("\r");
    }

    @Test
    @Requires({Feature.SHELL, Feature.TERMINAL, Feature.PROCESS_REGISTRY})
    default void terminal_readPromptAndResize(Sandbox sandbox) {
        Processes p = sandbox.shell().processes();
        ProcessInfo prompt = p.start(ExecRequest.argv("bash", "-c", "read -p 'Name? ' n; echo \"hello $n\"; "
                + "stty size; read -p 'Resized? ' _; stty size").withTerminal(80, 24));
        ProcessOutput o = readUntil(p, prompt.id(), 0, "Name? ");
        p.writeStdin(prompt.id(), "Ada\n");
        o = readUntil(p, prompt.id(), o.next(), "Resized? ");
        assertThat(o.text()).isEqualTo("Ada\nhello Ada\n24 80\nResized? ");
        p.resize(prompt.id(), 132, 43);
        p.writeStdin(prompt.id(), "\n");
        ProcessOutput end = p.read(prompt.id(), o.next(), Duration.ofSeconds(20));
        assertThat(end.running()).isFalse();
        assertThat(end.text()).isEqualTo("\n43 132\n");
        expectError(ErrorKind.UNSUPPORTED, () -> p.resize(p.start(ExecRequest.shell("true")).id(), 80, 24));
    }

    @Test
    @Requires({Feature.SHELL, Feature.TERMINAL})
    default void terminal_textModeStripsTheAlternateScreen_rawKeepsIt(Sandbox sandbox) {
        String tui = "printf 'before\\n\\033[?1049h\\033[2J\\033[Hsecret screen\\033[?1049l\\033[1;31mafter\\033[0m\\n'";
        ExecResult text = sandbox.shell().run(ExecRequest.shell(tui).withTerminal(80, 24));
        assertThat(text.stdout()).isEqualTo("before\nafter\n");
        ExecResult raw = sandbox.shell().run(ExecRequest.shell(tui).withTerminal(Terminal.of(80, 24).keepingControl()));
        assertThat(raw.stdout()).as("the terminal's bytes: its CR LF and every sequence")
                .isEqualTo("before\r\n\u001b[?1049h\u001b[2J\u001b[Hsecret screen\u001b[?1049l\u001b[1;31mafter"
                        + "\u001b[0m\r\n");
    }

    @Test
    @Requires({Feature.SHELL, Feature.TERMINAL, Feature.PROCESS_REGISTRY})
    default void terminal_ctrlC_interruptsTheForegroundJobOnly(Sandbox sandbox) {
        Processes p = sandbox.shell().processes();
        ProcessInfo shell = p.start(ExecRequest.argv("bash", "--norc", "--noprofile", "-i")
                .withEnv("PS1", "$ ").withTerminal(80, 24));
        ProcessOutput o = readUntil(p, shell.id(), 0, "$ ");
        p.writeStdin(shell.id(), "echo started; sleep 60; echo slept\n");
        o = readUntil(p, shell.id(), o.next(), "\nstarted\n");
        p.writeStdin(shell.id(), "\u0003");
        o = readUntil(p, shell.id(), o.next(), "$ ");
        p.writeStdin(shell.id(), "echo alive $?\n");
        o = readUntil(p, shell.id(), o.next(), "$ ");
        assertThat(o.text()).contains("alive 130\n").doesNotContain("slept");
        assertThat(p.info(shell.id()).running()).as("the shell survives").isTrue();
        p.writeStdin(shell.id(), "exit 3\n");
        ProcessOutput end = p.read(shell.id(), o.next(), Duration.ofSeconds(20));
        assertThat(end.running()).isFalse();
        assertThat(end.exitCode()).isEqualTo(3);
    }

    @Test
    @Requires({Feature.SHELL, Feature.TERMINAL, Feature.SHARED_PROCESS_SPACE})
    default void terminal_timeoutKillsTheWholeTree(Sandbox sandbox) {
        ExecResult r = sandbox.shell().run(ExecRequest.shell("sleep 301 & setsid sleep 302 & echo up; wait")
                .withTerminal(80, 24).withTimeout(Duration.ofSeconds(1)));
        assertThat(r.status()).isEqualTo(ExecStatus.TIMEOUT);
        assertThat(r.stdout()).contains("up\n");
        ExecResult left = sandbox.shell().run("for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f; echo; done "
                + "2>/dev/null | grep -c '^sleep 30[12]' || true");
        assertThat(left.stdout().trim()).as("nothing of the tree is left").isEqualTo("0");
    }

    @Test
    @Requires({Feature.SHELL, Feature.TERMINAL, Feature.ISOLATION})
    default void terminal_tiocstiStaysRefused(Sandbox sandbox) {
        ExecResult r = sandbox.shell().run(ExecRequest.argv("python3", "-c", "import fcntl, termios\n"
                + "try:\n    fcntl.ioctl(0, termios.TIOCSTI, b'x')\n    print('typed')\n"
                + "except OSError as e:\n    print('refused', e.errno)").withTerminal(80, 24));
        assertThat(r.stdout()).as("TIOCSTI types into a terminal: the filter's EPERM").isEqualTo("refused 1\n");
    }

    @Test
    @Requires(absent = Feature.TERMINAL)
    default void terminal_withoutTheFeature_failsUnsupported(Sandbox sandbox) {
        var before = Checks.snapshot(sandbox.files());
        expectError(ErrorKind.UNSUPPORTED, () -> sandbox.shell().run(ExecRequest.shell("touch x").withTerminal(80, 24)));
        assertThat(Checks.snapshot(sandbox.files())).as("nothing ran").isEqualTo(before);
    }

    @Test
    default void terminal_badSizesAndTypes_areRefusedWhenBuilt() {
        assertThatThrownBy(() -> Terminal.of(0, 24)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Terminal.of(80, Terminal.MAX_SIZE + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Terminal.of(80, 24).withType("xterm\nevil")).isInstanceOf(IllegalArgumentException.class);
    }

    /** Reads from {@code cursor} until the text ends with {@code wanted} (output arrives in pieces). */
    private static ProcessOutput readUntil(Processes p, String id, long cursor, String wanted) {
        StringBuilder text = new StringBuilder();
        long next = cursor;
        ProcessOutput last = null;
        for (int i = 0; i < 100 && !text.toString().endsWith(wanted); i++) {
            last = p.read(id, next, Duration.ofMillis(100));
            text.append(last.text());
            next = last.next();
            if (!last.running()) {
                break;
            }
        }
        assertThat(text.toString()).as("output of %s", id).endsWith(wanted);
        return new ProcessOutput(id, text.toString(), cursor, next, 0, last.running(), last.status(), last.exitCode());
    }
}
