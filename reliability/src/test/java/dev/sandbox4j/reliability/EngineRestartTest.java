package dev.sandbox4j.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * the Docker engine stopped and restarted during an exec. Long form only, and only when no other user's
 * container runs on this engine (stopping dockerd stops every container): force with
 * -Dreliability.dockerRestart=force. dockerd is always started again with its own command line.
 */
class EngineRestartTest {
    private static volatile String commandLine;

    @Test
    void engineStoppedAndRestartedDuringAnExec() throws Exception {
        Assumptions.assumeTrue(Rel.LONG || "force".equals(System.getProperty("reliability.dockerRestart")),
                "long form only (restarts the shared Docker engine)");
        Rel.requireBackend("docker");
        List<String> pg = Rel.host("pgrep", "-a", "-x", "dockerd");
        Assumptions.assumeTrue(pg.size() == 1, "need exactly one dockerd to restart: " + pg);
        List<String> others = Rel.host("sh", "-c", "docker ps -q | wc -l");
        boolean force = "force".equals(System.getProperty("reliability.dockerRestart"));
        Assumptions.assumeTrue(force || others.equals(List.of("0")),
                "other containers are running on this engine (" + others + "); force with -Dreliability.dockerRestart=force");
        String pid = pg.get(0).split(" ", 2)[0];
        commandLine = pg.get(0).split(" ", 2)[1];
        Rel.warmUp("docker");
        Rel.Snapshot base = Rel.Snapshot.take();
        ExecutorService pool = Executors.newSingleThreadExecutor(r -> new Thread(r, "rel-engine-caller"));
        Sandbox s = Rel.open("docker");
        String during;
        String after;
        long stopT;
        try {
            Future<ExecResult> f = pool.submit(() -> s.shell().run(ExecRequest.shell("sleep 20")
                    .withTimeout(Duration.ofSeconds(60))));
            Thread.sleep(1500);
            long t0 = System.nanoTime();
            Rel.host("kill", "-TERM", pid);
            during = FaultTest.outcome(f, 60);
            stopT = System.nanoTime() - t0;
            restart();
            after = "run " + FaultTest.call(() -> s.shell().run("true")) + ", files "
                    + FaultTest.call(() -> s.files().write("a.txt", "a"));
        } finally {
            restart();
            s.close();
            pool.shutdown();
        }
        String fresh = FaultTest.call(() -> {
            try (Sandbox n = Rel.open("docker")) {
                n.shell().run("true");
            }
        });
        Rel.report("fault docker engine stopped (SIGTERM to dockerd) during `sleep 20`: the exec -> " + during
                + " after " + Rel.ms(stopT) + "; after the restart the old sandbox -> " + after
                + "; a new sandbox -> " + fresh);
        assertThat(during).doesNotStartWith("OTHER");
        // D-CLOSE-STATUS (fixed): an exec ended by the engine stopping is KILLED with a detail, not COMPLETED 137.
        assertThat(during).doesNotStartWith("result COMPLETED");
        assertThat(after).doesNotContain("OTHER");
        assertThat(fresh).isEqualTo("ok");
        Rel.assertBaseline("fault docker engine restart", base, 30);
    }

    /** Starts dockerd again with the same command line if it is not running, and waits for it to answer. */
    static synchronized void restart() throws InterruptedException {
        if (commandLine == null) {
            return;
        }
        for (int i = 0; i < 100 && !Rel.host("pgrep", "-x", "dockerd").isEmpty()
                && Rel.host("sh", "-c", "docker info >/dev/null 2>&1 && echo up").isEmpty(); i++) {
            Thread.sleep(200); // still shutting down
        }
        if (Rel.host("pgrep", "-x", "dockerd").isEmpty()) {
            Rel.host("sh", "-c", "setsid nohup " + commandLine + " >>/tmp/sandbox4j-dockerd.log 2>&1 </dev/null &");
        }
        for (int i = 0; i < 120; i++) {
            if (!Rel.host("sh", "-c", "docker info >/dev/null 2>&1 && echo up").isEmpty()) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("dockerd did not come back: " + commandLine);
    }

    @AfterAll
    static void engineRunning() throws InterruptedException {
        restart();
    }
}
