package dev.sandbox4j.docker;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecStatus;
import dev.sandbox4j.Sandbox;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class SmokeTest {
    @Test
    void runsCommandsAndFiles() {
        try (Sandbox s = DockerTestSupport.open()) {
            long t0 = System.nanoTime();
            ExecResult r = s.shell().run("echo hi; echo err >&2; exit 7");
            long t1 = System.nanoTime();
            System.out.println("first exec ms " + (t1 - t0) / 1e6 + " " + r);
            assertThat(r.exitCode()).isEqualTo(7);
            assertThat(r.stdout()).isEqualTo("hi\n");
            assertThat(r.stderr()).isEqualTo("err\n");
            t0 = System.nanoTime();
            for (int i = 0; i < 5; i++) {
                s.shell().run("true");
            }
            System.out.println("exec round trip ms " + (System.nanoTime() - t0) / 5e6);
            assertThat(s.shell().run(ExecRequest.shell("cat").withStdin("in put")).stdout()).isEqualTo("in put");
            s.files().write("a/b.txt", "hello\nworld\n");
            assertThat(s.files().readText("a/b.txt")).isEqualTo("hello\nworld\n");
            assertThat(s.shell().run("cat a/b.txt; id -u").stdout()).isEqualTo("hello\nworld\n10001\n");
            assertThat(s.files().list("")).extracting(f -> f.path()).containsExactly("a");
            ExecResult t = s.shell().run(ExecRequest.shell("echo start; setsid sleep 100 & sleep 100").withTimeout(Duration.ofSeconds(1)));
            System.out.println(t);
            assertThat(t.status()).isEqualTo(ExecStatus.TIMEOUT);
            assertThat(t.stdout()).contains("start");
            assertThat(s.shell().run("ps -eo pid,args").stdout()).doesNotContain("sleep 100");
            System.out.println(s.shell().run("grep -E 'Cap|NoNew|Seccomp' /proc/self/status; cat /sys/fs/cgroup/pids/pids.max").stdout());
            System.out.println(s.code().run("python", "print(1+1)"));
            System.out.println(s.info());
        }
    }
}
