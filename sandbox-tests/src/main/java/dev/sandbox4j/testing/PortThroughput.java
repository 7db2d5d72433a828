package dev.sandbox4j.testing;

import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.PortForward;
import dev.sandbox4j.Sandbox;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Hand measurement of an opened port's throughput (docs/benchmarks.md, "Ports"), shared by the backends' measure
 * tests: 100 MiB from a Python server in the sandbox to a Java client on the host through {@code ports().open}, and
 * 100 MiB the other way, against the same server run on the host and reached over the host's loopback, in the same
 * run; for scale, the same 100 MiB as a command's stdout through the same agent. Figures, not assertions.
 */
public final class PortThroughput {
    private PortThroughput() {
    }

    private static final int MIB = 1 << 20;
    private static final int SIZE = 100 * MIB;
    private static final int WARMUP = 2;
    private static final int N = 7;
    /** source: sends SIZE bytes and closes; sink: reads to EOF, answers the count. */
    private static final String SERVER = String.join("\n",
            "import socket, sys",
            "port, size = int(sys.argv[1]), int(sys.argv[2])",
            "s = socket.socket()",
            "s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)",
            "s.bind(('127.0.0.1', port))",
            "s.listen(16)",
            "print('listening on', s.getsockname()[1], flush=True)",
            "chunk = b'x' * (1 << 20)",
            "while True:",
            "    c, _ = s.accept()",
            "    mode = c.recv(1)",
            "    if mode == b's':",
            "        left = size",
            "        while left > 0:",
            "            left -= c.send(chunk[:min(left, len(chunk))])",
            "    else:",
            "        n = 0",
            "        while True:",
            "            b = c.recv(1 << 20)",
            "            if not b: break",
            "            n += len(b)",
            "        c.sendall(str(n).encode())",
            "    c.close()",
            "");

    /** Prints the figures of one sandbox {@code opener} gives, against the host, in the same run. */
    public static void measure(java.util.function.Supplier<Sandbox> opener, String what) throws Exception {
        System.out.println("[ports] " + what);
        Path dir = Files.createTempDirectory("port-measure");
        Path script = dir.resolve("server.py");
        Files.writeString(script, SERVER);
        Process host = new ProcessBuilder("python3", "-u", script.toString(), "0", Integer.toString(SIZE))
                .redirectErrorStream(true).start();
        try (Sandbox s = opener.get()) {
            String line = new java.io.BufferedReader(new java.io.InputStreamReader(host.getInputStream())).readLine();
            int hostPort = Integer.parseInt(line.replaceAll("\\D+", " ").trim().split(" ")[0]);
            InetSocketAddress direct = new InetSocketAddress("127.0.0.1", hostPort);
            s.files().write("server.py", SERVER);
            String id = s.shell().processes().start(ExecRequest.shell("python3 -u server.py 9000 " + SIZE)).id();
            s.ports().waitForLog(id, Pattern.compile("listening"), Duration.ofSeconds(30));
            PortForward f = s.ports().open(9000);
            System.out.printf("[ports] load before: %s%n", Files.readString(Path.of("/proc/loadavg")).trim());
            for (String dirn : new String[] {"s", "r"}) {
                long[] viaPort = time(f.address(), dirn);
                long[] onHost = time(direct, dirn);
                report(dirn.equals("s") ? "sandbox -> host" : "host -> sandbox", viaPort, onHost);
            }
            long[] stdout = new long[N];
            for (int i = -WARMUP; i < N; i++) {
                long start = System.nanoTime();
                long[] got = new long[1];
                try (dev.sandbox4j.ExecHandle h = s.shell().start(ExecRequest.shell("head -c " + SIZE + " /dev/zero"),
                        new dev.sandbox4j.OutputListener() {
                            @Override
                            public void onStdoutBytes(byte[] chunk) {
                                got[0] += chunk.length;
                            }
                        })) {
                    h.await(Duration.ofSeconds(120)).orElseThrow();
                }
                if (got[0] != SIZE) {
                    throw new IllegalStateException(got[0] + " bytes");
                }
                if (i >= 0) {
                    stdout[i] = System.nanoTime() - start;
                }
            }
            Arrays.sort(stdout);
            System.out.printf("[ports] for scale, 100 MiB as a command's stdout through the same agent: median %.0f ms%n",
                    stdout[N / 2] / 1e6);
            System.out.printf("[ports] load after: %s%n", Files.readString(Path.of("/proc/loadavg")).trim());
        } finally {
            host.destroy();
            host.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static long[] time(InetSocketAddress at, String mode) throws Exception {
        long[] t = new long[N];
        for (int i = -WARMUP; i < N; i++) {
            long start = System.nanoTime();
            transfer(at, mode);
            if (i >= 0) {
                t[i] = System.nanoTime() - start;
            }
        }
        Arrays.sort(t);
        return t;
    }

    private static void transfer(InetSocketAddress at, String mode) throws Exception {
        try (Socket c = new Socket(at.getAddress(), at.getPort())) {
            c.setSoTimeout(120_000);
            OutputStream out = c.getOutputStream();
            InputStream in = c.getInputStream();
            out.write(mode.charAt(0));
            byte[] buf = new byte[MIB];
            long got = 0;
            if (mode.equals("s")) {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    got += n;
                }
            } else {
                for (int left = SIZE; left > 0; left -= MIB) {
                    out.write(buf, 0, Math.min(left, MIB));
                }
                c.shutdownOutput();
                got = Long.parseLong(new String(in.readAllBytes()).trim());
            }
            if (got != SIZE) {
                throw new IllegalStateException(got + " bytes, not " + SIZE);
            }
        }
    }

    private static void report(String what, long[] viaPort, long[] onHost) {
        double port = viaPort[N / 2] / 1e6;
        double host = onHost[N / 2] / 1e6;
        System.out.printf("[ports] %s 100 MiB: opened port median %.0f ms (%.0f MiB/s, p90 %.0f ms), host loopback "
                        + "median %.0f ms (%.0f MiB/s); throughput ratio %.2f%n", what, port, 100_000 / port,
                viaPort[(N * 9) / 10] / 1e6, host, 100_000 / host, host / port);
    }
}
