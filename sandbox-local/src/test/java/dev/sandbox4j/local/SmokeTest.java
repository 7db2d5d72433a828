package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import org.junit.jupiter.api.Test;

class SmokeTest {
    @Test
    void runsACommand() {
        try (Sandbox s = Jail.open()) {
            ExecResult r = s.shell().run("echo hello; echo err >&2; id -u; pwd; exit 3");
            System.out.println(r + " " + s.info());
            assertThat(r.stdout()).startsWith("hello\n");
            assertThat(r.stderr()).isEqualTo("err\n");
            assertThat(r.exitCode()).isEqualTo(3);
        }
    }
}
