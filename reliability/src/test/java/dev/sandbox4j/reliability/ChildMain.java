package dev.sandbox4j.reliability;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.Sandboxes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Main class of the child JVMs the suite starts (with java.class.path): {@code hold}, {@code fdlimit},
 * {@code threads}. Prints {@code READY ...} and {@code RESULT ...} lines on stdout.
 */
public final class ChildMain {
    private ChildMain() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        String backend = args[1];
        switch (mode) {
            case "hold": {
                Sandbox s = Sandboxes.open(backend);
                s.shell().run("true");
                System.out.println("READY " + s.id());
                System.out.flush();
                s.shell().run("sleep 600");
                break;
            }
            case "fdlimit":
                fdLimit(backend);
                break;
            case "threads":
                threads(backend, Integer.parseInt(args[2]));
                break;
            default:
                throw new IllegalArgumentException(mode);
        }
        System.out.flush();
        System.exit(0);
    }

    private static final List<String> MESSAGES = new ArrayList<>();

    private static String outcome(Runnable r) {
        try {
            r.run();
            return "ok";
        } catch (SandboxException e) {
            synchronized (MESSAGES) {
                if (MESSAGES.size() < 2) {
                    MESSAGES.add(e.toString());
                }
            }
            return "typed:" + e.kind();
        } catch (Throwable e) {
            return "OTHER:" + e.toString();
        }
    }

    /** Runs in a JVM started under `ulimit -n N`: opens sandboxes until something gives, then uses what it got. */
    private static void fdLimit(String backend) {
        List<Sandbox> open = new ArrayList<>();
        List<String> out = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String o = outcome(() -> open.add(Sandboxes.open(backend)));
            out.add("open" + i + "=" + o);
        }
        for (int i = 0; i < open.size(); i++) {
            Sandbox s = open.get(i);
            int k = i;
            out.add("run" + i + "=" + outcome(() -> {
                ExecResult r = s.shell().run("echo " + k);
                if (!r.stdout().equals(k + "\n")) {
                    throw new IllegalStateException("wrong output " + r);
                }
            }));
            out.add("file" + i + "=" + outcome(() -> s.files().write("f.txt", "x")));
        }
        for (Sandbox s : open) {
            out.add("close=" + outcome(s::close));
        }
        out.add("reopen=" + outcome(() -> {
            try (Sandbox s = Sandboxes.open(backend)) {
                s.shell().run("true");
            }
        }));
        System.out.println("RESULT " + String.join(" ", out));
        System.out.println("RESULT messages " + MESSAGES);
    }

    /** Launches from short-lived platform threads and, on JDK 21+, from virtual threads. */
    private static void threads(String backend, int n) throws Exception {
        try (Sandbox s = Sandboxes.open(backend)) {
            AtomicInteger ok = new AtomicInteger();
            List<String> bad = new ArrayList<>();
            long t0 = System.nanoTime();
            List<Thread> ts = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int k = i;
                Thread t = new Thread(() -> record(s, k, ok, bad), "short-lived-" + i);
                t.start();
                ts.add(t);
            }
            for (Thread t : ts) {
                t.join(120_000);
            }
            long platform = System.nanoTime() - t0;
            System.out.println("RESULT platform ok=" + ok.get() + " bad=" + bad.size() + " ms=" + platform / 1_000_000
                    + (bad.isEmpty() ? "" : " first=" + bad.get(0)));
            ok.set(0);
            bad.clear();
            ExecutorService virt;
            try {
                virt = (ExecutorService) java.util.concurrent.Executors.class
                        .getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
            } catch (NoSuchMethodException e) {
                System.out.println("RESULT virtual unsupported java=" + System.getProperty("java.version"));
                return;
            }
            t0 = System.nanoTime();
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int k = i;
                fs.add(virt.submit(() -> record(s, k, ok, bad)));
            }
            for (Future<?> f : fs) {
                f.get(120, TimeUnit.SECONDS);
            }
            virt.shutdown();
            System.out.println("RESULT virtual ok=" + ok.get() + " bad=" + bad.size() + " ms="
                    + (System.nanoTime() - t0) / 1_000_000 + " java=" + System.getProperty("java.version")
                    + (bad.isEmpty() ? "" : " first=" + bad.get(0)));
        }
    }

    private static void record(Sandbox s, int k, AtomicInteger ok, List<String> bad) {
        String o = outcome(() -> {
            ExecResult r = s.shell().run("echo " + k);
            if (!r.stdout().equals(k + "\n")) {
                throw new IllegalStateException("wrong output: " + r.status() + " exit " + r.exitCode() + " stdout ["
                        + r.stdout().trim() + "] stderr [" + r.stderr().trim() + "] " + r.detail());
            }
        });
        if (o.equals("ok")) {
            ok.incrementAndGet();
        } else {
            synchronized (bad) {
                bad.add(o);
            }
        }
    }
}
