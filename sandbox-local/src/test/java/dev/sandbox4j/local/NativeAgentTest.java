package dev.sandbox4j.local;

import dev.sandbox4j.core.AgentProtocol;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The jail's main process is the native agent: no JVM in the jail, small. (Many commands at once through one agent
 * is sandbox-tests' BareHostTest: it needs the agent, not the jail.)
 */
class NativeAgentTest {

    @Test
    void theJailHoldsNoJvm() throws Exception {
        try (Sandbox s = Jail.open()) {
            ExecHandle bg = s.shell().start(ExecRequest.shell("sleep 30"));
            // every process the jail can see, by its command line
            ExecResult r = s.shell().run(ExecRequest.shell(
                    "for f in /proc/[0-9]*/cmdline; do printf '%s:' \"${f#/proc/}\"; tr '\\0' ' ' < \"$f\"; echo; "
                            + "done"));
            assertThat(r.exitCode()).as(r.stderr()).isZero();
            List<String> lines = r.stdout().lines().toList();
            // the agent is the jail's init (bwrap --as-pid-1): no bwrap reaper in between
            assertThat(lines).anyMatch(l -> l.startsWith("1/cmdline:/opt/sandbox4j/sbx-agent"));
            assertThat(lines).anyMatch(l -> l.contains("/opt/sandbox4j/sbx-reaper -- /bin/sh -c sleep 30"));
            assertThat(lines).noneMatch(l -> l.contains("java") || l.contains("AgentProtocol"));
            // and from the host: none of the sandbox's processes is a JVM, the agent's RSS is small
            List<Long> pids = FootprintMeasure.processesOf(s.id());
            assertThat(pids).isNotEmpty();
            boolean agentSeen = false;
            for (long pid : pids) {
                String cmd = FootprintMeasure.cmdline(pid);
                assertThat(cmd).as("process %d of the sandbox", pid).doesNotContain("java");
                if (cmd.startsWith("/opt/sandbox4j/sbx-agent")) {
                    agentSeen = true;
                    assertThat(FootprintMeasure.rssKib(pid)).as("agent RSS KiB").isLessThan(4096);
                }
            }
            assertThat(agentSeen).as("the agent among " + pids).isTrue();
            // a command holds its three pipes and nothing the agent or bwrap had open (ls's own directory is 3)
            assertThat(s.shell().run(ExecRequest.argv("ls", "/proc/self/fd")).stdout()).isEqualTo("0\n1\n2\n3\n");
            assertThat(Files.exists(Path.of(s.info().details().get("workspace")))).isTrue();
            bg.kill();
        }
    }
}
