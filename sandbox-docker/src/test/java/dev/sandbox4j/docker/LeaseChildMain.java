package dev.sandbox4j.docker;

import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;

import java.time.Duration;

/**
 * A JVM that opens a leased Docker sandbox, writes a file, starts a background command, prints the sandbox's id and
 * credential on one line, and dies without closing anything ({@link Runtime#halt}: no shutdown hook runs), as a
 * crashed service would. Run by {@link DockerLeaseLifeTest}; arg 0 is the lease in milliseconds.
 */
public final class LeaseChildMain {
    private LeaseChildMain() {
    }

    public static void main(String[] args) throws Exception {
        Sandbox s = new DockerSandboxProvider().open(SandboxSpec.builder()
                .lease(Duration.ofMillis(Long.parseLong(args[0]))).build());
        s.files().write("from-child.txt", "written by the JVM that died\n");
        s.shell().start(ExecRequest.shell("exec sleep 1000"));
        System.out.println("LEASED " + s.id() + " " + s.credential().reveal());
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}
