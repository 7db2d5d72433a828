package dev.sandbox4j.bench;

import com.sun.net.httpserver.HttpServer;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.core.AgentEgress;
import dev.sandbox4j.tools.Browser;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The browser (issue 29) on a local jail, against a page server on the host reached through the allow-list:
 * launch to first snapshot of a small page (a new browser each round) against what a user would do by hand in the
 * same jail, a cold {@code chromium --headless --dump-dom} of the same page; a snapshot of a 1,000-button page
 * against {@code content()} of it (one round trip carrying its HTML); host memory (PSS) of an idle browser's
 * process tree.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar dev.sandbox4j.bench.BrowserMeasure [rounds]</pre>
 */
public final class BrowserMeasure {
    private BrowserMeasure() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        StringBuilder many = new StringBuilder("<html><head><title>Many</title></head><body>");
        for (int i = 0; i < 1000; i++) {
            many.append("<button>b").append(i).append("</button>");
        }
        String manyPage = many.append("</body></html>").toString();
        server.createContext("/", ex -> {
            String body = ex.getRequestURI().getPath().equals("/many.html") ? manyPage
                    : "<html><head><title>Small</title></head><body><h1>Hi</h1><input aria-label=q><button>Go</button>"
                    + "<a href=/x>x</a></body></html>";
            byte[] b = body.getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/html");
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        server.start();
        int port = server.getAddress().getPort();
        InetAddress ok = InetAddress.getByName("127.0.0.1");
        String base = "http://pages.test:" + port;
        try (AutoCloseable egress = AgentEgress.overrideForTests(n -> ok, server.getAddress());
             Sandbox s = Sandboxes.open("local", SandboxSpec.builder()
                     .network(NetworkPolicy.allowDomains("pages.test:" + port)).build())) {
            double[] first = new double[rounds];
            double[] byHand = new double[rounds];
            String proxy = s.shell().run("printf %s \"$HTTP_PROXY\"").stdout();
            for (int i = -1; i < rounds; i++) { // one warm-up round
                long t0 = System.nanoTime();
                try (Browser b = Browser.launch(s)) {
                    b.navigate(base + "/small.html");
                    if (b.snapshot().elements().size() != 3) {
                        throw new IllegalStateException("wrong snapshot");
                    }
                }
                long t1 = System.nanoTime();
                ExecResult r = s.shell().run("d=$(mktemp -d); " + Browser.DEFAULT_EXECUTABLE + " --headless --no-sandbox"
                        + " --disable-gpu --no-first-run --user-data-dir=$d --proxy-server=" + proxy
                        + " --dump-dom " + base + "/small.html 2>/dev/null; rm -rf $d");
                long t2 = System.nanoTime();
                if (!r.stdout().contains("<h1>Hi</h1>")) {
                    throw new IllegalStateException("chromium by hand: " + r);
                }
                if (i >= 0) {
                    first[i] = (t1 - t0) / 1e6;
                    byHand[i] = (t2 - t1) / 1e6;
                }
            }
            System.out.printf("launch+navigate+snapshot+close: median %.0f ms (p90 %.0f); chromium --dump-dom by hand:"
                    + " median %.0f ms (p90 %.0f); ratio %.2f (n=%d)%n", pct(first, 50), pct(first, 90),
                    pct(byHand, 50), pct(byHand, 90), pct(first, 50) / pct(byHand, 50), rounds);
            try (Browser b = Browser.launch(s)) {
                b.navigate(base + "/many.html");
                int n = rounds * 3;
                double[] snap = new double[n];
                double[] content = new double[n];
                for (int i = -2; i < n; i++) {
                    long t0 = System.nanoTime();
                    Browser.Snapshot sn = b.snapshot();
                    long t1 = System.nanoTime();
                    b.content();
                    long t2 = System.nanoTime();
                    if (sn.elements().size() != 200) {
                        throw new IllegalStateException("refs " + sn.elements().size());
                    }
                    if (i >= 0) {
                        snap[i] = (t1 - t0) / 1e6;
                        content[i] = (t2 - t1) / 1e6;
                    }
                }
                System.out.printf("snapshot of 1,000 buttons: median %.1f ms (p90 %.1f); content() of it: median %.1f"
                        + " ms; ratio %.1f (n=%d)%n", pct(snap, 50), pct(snap, 90), pct(content, 50),
                        pct(snap, 50) / pct(content, 50), n);
                b.navigate(base + "/small.html");
                Thread.sleep(3000);
                long pss = 0;
                long anon = 0;
                int procs = 0;
                for (ProcessHandle p : browserTree(b)) {
                    pss += kb(p.pid(), "Pss:");
                    anon += kb(p.pid(), "Pss_Anon:");
                    procs++;
                }
                System.out.printf("idle browser on a small page: %d processes, PSS %.1f MiB, of which anonymous"
                        + " (heap, not the shared binary's pages) %.1f MiB%n", procs, pss / 1024.0, anon / 1024.0);
            }
        } finally {
            server.stop(0);
        }
        System.exit(0);
    }

    /** The host processes of this browser: the Chromium whose command line names its profile, and its descendants. */
    static List<ProcessHandle> browserTree(Browser b) throws Exception {
        java.lang.reflect.Method m = Browser.class.getDeclaredMethod("profileDir");
        m.setAccessible(true); // package-private on purpose: a test and measurement hook, not API
        String profile = (String) m.invoke(b);
        List<ProcessHandle> out = new ArrayList<>();
        ProcessHandle.allProcesses().filter(p -> cmdline(p.pid()).contains("--user-data-dir=" + profile)
                && cmdline(p.pid()).contains("--remote-debugging-pipe")).forEach(p -> {
                    out.add(p);
                    p.descendants().forEach(out::add);
                });
        return out;
    }

    static String cmdline(long pid) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline")), StandardCharsets.UTF_8);
        } catch (Exception e) {
            return "";
        }
    }

    static long kb(long pid, String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/smaps_rollup"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (Exception e) {
            return 0;
        }
        return 0;
    }

    private static double pct(double[] v, int p) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c[Math.min(c.length - 1, (int) Math.ceil(p / 100.0 * c.length) - 1)];
    }
}
