package dev.sandbox4j.kubernetes;

import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.core.AgentChannel;
import dev.sandbox4j.core.AgentRunner;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hand measurement on the simulated control plane (docs/benchmarks.md, "Kubernetes"): claim to first command answered
 * on a warm pool, against its parts (the API round trips alone, and the same agent reached directly: connect,
 * handshake, READY, the language probe, one command); a command's round trip over the TCP connector against the
 * local backend's; 200 sandboxes opened by 16 threads. Run only when asked ({@code -Dsandbox4j.measure=true}).
 */
class KubernetesMeasure {
    private static final int OPENS = 20;

    @Test
    @org.junit.jupiter.api.Timeout(value = 20, unit = java.util.concurrent.TimeUnit.MINUTES)
    void claimToFirstCommandAndRoundTrip() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("sandbox4j.measure"), "set -Dsandbox4j.measure=true");
        KubernetesTestSupport.assumeDocker();
        try (ControllerSimulator sim = new ControllerSimulator(); KubernetesSandboxProvider p = sim.provider()) {
            sim.warmPool(4);
            p.open(SandboxSpec.defaults()).close(); // the plan and key cached, the JIT warm
            sim.warmPool(4);
            long[] open = new long[OPENS];
            long[][] parts = new long[5][OPENS];
            long[][] ready = new long[3][OPENS]; // created -> controller saw it, its work, status written -> we saw it
            for (int i = 0; i < OPENS; i++) {
                sim.warmPool(4); // each open finds a started pod, as on a warm pool
                sim.refills = false; // no pod start beside the measured open (a real pool refills on other nodes)
                long t0 = System.nanoTime();
                try (Sandbox s = p.open(SandboxSpec.defaults())) {
                    long opened = System.nanoTime() - t0;
                    s.shell().run("echo hi");
                    open[i] = System.nanoTime() - t0;
                    long[] ph = KubernetesHost.of(s).phases;
                    for (int k = 0; k < 4; k++) {
                        parts[k][i] = ph[k];
                    }
                    parts[4][i] = opened - ph[0] - ph[1] - ph[2] - ph[3];
                    long[] h = sim.handling.get(s.id());
                    long created = ph[4];
                    long readySeen = ph[5];
                    ready[0][i] = h[0] - created;
                    ready[1][i] = h[1] - h[0];
                    ready[2][i] = readySeen - h[1];
                }
                sim.refills = true;
            }
            long[] ours = new long[OPENS];
            for (int i = 0; i < OPENS; i++) {
                ours[i] = open[i] - ready[1][i];
            }
            report("claim -> first command (warm pool)", open);
            String[] names = {"  plan + key (cached)", "  create claim", "  claim Ready (watch; simulator's work)",
                "  connect + handshake", "  READY, probe, workspace (AgentSandbox)"};
            for (int k = 0; k < 5; k++) {
                report(names[k], parts[k]);
            }
            String[] readyNames = {"    claim created -> the controller's watch event", "    the controller's work"
                    + " (3 reads, Sandbox create, status write)", "    status written -> this JVM's watch event"};
            for (int k = 0; k < 3; k++) {
                report(readyNames[k], ready[k]);
            }
            report("claim -> first command without the controller's work", ours);
            report("API: create claim", api(sim, true));
            report("API: get claim", api(sim, false));
            report("agent direct: connect+handshake+READY+probe+echo", direct(sim));
            try (Sandbox s = p.open(SandboxSpec.defaults())) {
                report("command round trip, TCP connector", rtt(s));
            }
        }
        try (Sandbox local = Sandboxes.open("local", SandboxSpec.defaults())) {
            report("command round trip, local backend", rtt(local));
        }
    }

    /** Creating (or reading) a claim the controller leaves alone: one API round trip each. */
    private static long[] api(ControllerSimulator sim, boolean create) {
        sim.serving = false;
        Cluster c = new Cluster(sim.client, sim.options(), false);
        long[] t = new long[OPENS];
        c.createClaim("sbx-measure", Duration.ZERO);
        for (int i = 0; i < OPENS; i++) {
            long t0 = System.nanoTime();
            if (create) {
                c.createClaim("sbx-measure-" + i, Duration.ZERO);
            } else {
                c.claims().inNamespace(ControllerSimulator.NAMESPACE).withName("sbx-measure").get();
            }
            t[i] = System.nanoTime() - t0;
        }
        for (int i = 0; i < OPENS; i++) {
            c.deleteClaim("sbx-measure-" + i);
        }
        c.deleteClaim("sbx-measure");
        sim.serving = true;
        return t;
    }

    /** The same agent in a started pod, reached without the API: what the claim adds to, not counting the pod. */
    private static long[] direct(ControllerSimulator sim) throws Exception {
        byte[] key = java.util.HexFormat.of().parseHex(sim.keyHex);
        long[] t = new long[OPENS];
        for (int i = 0; i < OPENS; i++) {
            sim.serving = true;
            String ip = sim.startWarmPodForMeasure();
            long t0 = System.nanoTime();
            try (Socket sock = AgentConnector.connect(ip, 7070, key, Duration.ofSeconds(10))) {
                AgentChannel ch = new AgentChannel("measure", sock.getInputStream(), sock.getOutputStream(), w -> {
                });
                ch.start();
                ch.awaitReady(Duration.ofSeconds(10));
                AgentRunner r = new AgentRunner(ch, KubernetesHost.FIXED_ENV, "/workspace");
                r.run(List.of("/bin/sh", "-c", dev.sandbox4j.core.LanguageProbe.PROBE), null, 1 << 16,
                        Duration.ofSeconds(10));
                r.run(List.of("/bin/sh", "-c", "echo hi"), null, 1 << 16, Duration.ofSeconds(10));
                t[i] = System.nanoTime() - t0;
                ch.close();
            }
            sim.removeMeasurePods();
        }
        return t;
    }

    private static long[] rtt(Sandbox s) {
        for (int i = 0; i < 100; i++) {
            s.shell().run("true");
        }
        long[] t = new long[400];
        for (int i = 0; i < t.length; i++) {
            long t0 = System.nanoTime();
            s.shell().run("true");
            t[i] = System.nanoTime() - t0;
        }
        return t;
    }

    @Test
    @org.junit.jupiter.api.Timeout(value = 20, unit = java.util.concurrent.TimeUnit.MINUTES)
    void twoHundredSandboxesBySixteenThreads() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("sandbox4j.measure"), "set -Dsandbox4j.measure=true");
        KubernetesTestSupport.assumeDocker();
        try (ControllerSimulator sim = new ControllerSimulator(); KubernetesSandboxProvider p = sim.provider()) {
            p.open(SandboxSpec.defaults()).close();
            int threadsBefore = Thread.activeCount();
            ExecutorService pool = Executors.newFixedThreadPool(16);
            List<Future<Long>> all = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int i = 0; i < 200; i++) {
                all.add(pool.submit(() -> {
                    long s0 = System.nanoTime();
                    try (Sandbox s = p.open(SandboxSpec.defaults())) {
                        assertThat(s.shell().run("echo ok").stdout()).isEqualTo("ok\n");
                    }
                    return System.nanoTime() - s0;
                }));
            }
            long[] each = new long[all.size()];
            for (int i = 0; i < each.length; i++) {
                each[i] = all.get(i).get();
            }
            long wall = System.nanoTime() - t0;
            pool.shutdown();
            report("200 opens by 16 threads: each", each);
            System.out.printf("MEASURE 200 opens by 16 threads: wall %.1f s, claims left %d, pods left %d%n",
                    wall / 1e9, KubernetesLifecycleTest.claims(sim), sim.containers.size());
            Thread.sleep(10_000); // idle pools (AgentSandbox's closers: 5 s) let their threads go
            var groups = new java.util.TreeMap<String, Integer>();
            Thread.getAllStackTraces().keySet().forEach(t -> groups.merge(t.getName().replaceAll("[0-9]+", "N"), 1,
                    Integer::sum));
            System.out.printf("MEASURE threads before %d, after %d (workers ended: %s): %s%n", threadsBefore,
                    Thread.activeCount(), pool.isTerminated(), groups);
            Runtime rt = Runtime.getRuntime();
            System.gc();
            long base = rt.totalMemory() - rt.freeMemory();
            List<Sandbox> open = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                open.add(p.open(SandboxSpec.defaults()));
            }
            System.gc();
            long used = rt.totalMemory() - rt.freeMemory();
            System.out.printf("MEASURE heap per open sandbox: %.0f KiB (16 open)%n", (used - base) / 16.0 / 1024);
            open.forEach(Sandbox::close);
            assertThat(KubernetesLifecycleTest.claims(sim)).isZero();
        }
    }

    private static void report(String what, long[] t) {
        Arrays.sort(t);
        System.out.printf("MEASURE %-50s median %.2f ms  p90 %.2f ms  (n=%d)%n", what, t[t.length / 2] / 1e6,
                t[t.length * 9 / 10] / 1e6, t.length);
    }
}
