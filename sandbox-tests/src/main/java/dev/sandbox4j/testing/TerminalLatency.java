package dev.sandbox4j.testing;

import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.OutputListener;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.Terminal;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Keystroke-to-echo latency through a terminal (issue 32's target), for the backends' measure tests: one byte typed
 * into {@code cat} under a terminal until the terminal's echo of it is back on the host, against the same through a
 * pseudo-terminal on the host by hand ({@code script -qfec cat /dev/null}, util-linux), in the same run. Samples are
 * taken one at a time (a byte is typed once the last echo came), under the terminal's line limit (4,095 bytes).
 */
public final class TerminalLatency {
    private TerminalLatency() {
    }

    /** Milliseconds of {@code n} keystrokes through a sandbox's terminal, sorted, after {@code warm} unmeasured. */
    public static double[] sandbox(Sandbox sandbox, int warm, int n) throws InterruptedException {
        Semaphore echoed = new Semaphore(0);
        OutputListener listener = OutputListener.ofBytes(b -> echoed.release(count(b)), b -> {
        });
        try (ExecHandle cat = sandbox.shell().start(ExecRequest.argv("cat")
                .withTerminal(Terminal.of(80, 24).keepingControl()), listener)) {
            double[] ms = new double[n];
            for (int i = 0; i < warm + n; i++) {
                long t0 = System.nanoTime();
                cat.writeStdin(new byte[] {'x'});
                if (!echoed.tryAcquire(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("no echo within 10 s");
                }
                if (i >= warm) {
                    ms[i - warm] = (System.nanoTime() - t0) / 1e6;
                }
            }
            Arrays.sort(ms);
            return ms;
        }
    }

    /** The same through {@code script}'s pseudo-terminal on the host; null when {@code script} cannot run. */
    public static double[] host(int warm, int n) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder("script", "-qfec", "cat", "/dev/null").redirectErrorStream(true).start();
        } catch (IOException e) {
            return null;
        }
        try (OutputStream in = p.getOutputStream(); InputStream out = p.getInputStream()) {
            double[] ms = new double[n];
            for (int i = 0; i < warm + n; i++) {
                long t0 = System.nanoTime();
                in.write('x');
                in.flush();
                int c;
                do {
                    c = out.read();
                } while (c != 'x' && c >= 0);
                if (c < 0) {
                    return null;
                }
                if (i >= warm) {
                    ms[i - warm] = (System.nanoTime() - t0) / 1e6;
                }
            }
            Arrays.sort(ms);
            return ms;
        } finally {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
        }
    }

    /** Median, 90th percentile, 99th percentile of sorted samples, as text. */
    public static String summary(double[] sorted) {
        return String.format(java.util.Locale.ROOT, "median %.3f ms, p90 %.3f ms, p99 %.3f ms (%d samples)",
                sorted[sorted.length / 2], sorted[(int) (sorted.length * 0.9)], sorted[(int) (sorted.length * 0.99)],
                sorted.length);
    }

    private static int count(byte[] chunk) {
        int n = 0;
        for (byte b : chunk) {
            if (b == 'x') {
                n++;
            }
        }
        return n;
    }
}
