package dev.sandbox4j.docker;

import dev.sandbox4j.AttachCredential;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Leases and reattach on Docker (docs/reattach.md): a detached sandbox keeps its files and is attached to again by id
 * and credential; its commands were killed at the detach; a wrong credential gets nothing and changes nothing; a
 * second host while one is attached is a conflict; an unknown id is not found. One leased sandbox is shared by the
 * tests that detach and attach it in turn ({@link #current}).
 */
class DockerReattachTest {
    private static final SandboxSpec LEASED = SandboxSpec.builder().lease(Duration.ofMinutes(5)).build();
    private static String id;
    private static AttachCredential credential;
    /** The host holding the shared sandbox now. */
    private static final AtomicReference<Sandbox> current = new AtomicReference<>();

    @BeforeAll
    static void openLeased() {
        Sandbox s = DockerTestSupport.open(LEASED);
        current.set(s);
        id = s.id();
        credential = s.credential();
        s.files().write("kept.txt", "still here\n");
    }

    @AfterAll
    static void closeIt() {
        Sandbox s = current.getAndSet(null);
        if (s != null) {
            s.close();
        }
    }

    private static Sandbox attach(String id, AttachCredential credential) {
        return DockerTestSupport.PROVIDER.attach(id, credential, SandboxSpec.defaults());
    }

    /** Detaches the shared sandbox (if a host holds it) and attaches to it again. */
    private static synchronized Sandbox reattached() {
        Sandbox s = current.get();
        if (s != null && s.isOpen()) {
            s.detach();
        }
        Sandbox again = attach(id, credential);
        current.set(again);
        return again;
    }

    @Test
    void attach_takesTheHostsSettingsOnly() {
        Sandbox s = current.get();
        if (s != null && s.isOpen()) {
            s.detach();
        }
        current.set(null);
        SandboxSpec fixed = SandboxSpec.builder().file("x.txt", "no").build();
        assertThatThrownBy(() -> DockerTestSupport.PROVIDER.attach(id, credential, fixed))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(ErrorKind.INVALID_ARGUMENT)).hasMessageContaining("files");
        Sandbox again = DockerTestSupport.PROVIDER.attach(id, credential, SandboxSpec.builder()
                .env("HOST_SETTING", "mine").build());
        current.set(again);
        assertThat(again.shell().run("echo $HOST_SETTING").stdout()).isEqualTo("mine\n");
        assertThat(again.files().exists("x.txt")).isFalse();
    }

    @Test
    void open_leaseWithANetworkPolicy_isUnsupported() {
        DockerTestSupport.requireDocker();
        assertThatThrownBy(() -> DockerTestSupport.open(LEASED.toBuilder()
                .network(dev.sandbox4j.NetworkPolicy.allowAll()).build()))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(ErrorKind.UNSUPPORTED));
    }

    @Test
    void detach_thenAttach_keepsFilesKillsCommandsAndRuns() throws Exception {
        Sandbox before = current.get() != null && current.get().isOpen() ? current.get() : reattached();
        assertThat(before.info().features()).contains(Feature.REATTACH);
        ExecHandle bg = before.shell().start(dev.sandbox4j.ExecRequest.shell("echo started; exec sleep 1000"));
        assertThat(before.shell().run("test -e kept.txt && echo yes").stdout()).isEqualTo("yes\n");
        assertThat(before.credential()).isEqualTo(credential);
        assertThat(before.detach()).isEqualTo(credential);
        assertThatThrownBy(() -> before.shell().run("true")).isInstanceOfSatisfying(SandboxException.class,
                e -> assertThat(e.kind()).isEqualTo(ErrorKind.CLOSED));
        assertThat(bg.await(Duration.ofSeconds(30)).orElseThrow().exitCode()).as("the background command ended with the detach")
                .isNotZero();

        Sandbox after = attach(id, credential);
        current.set(after);
        assertThat(after.id()).isEqualTo(id);
        assertThat(after.files().readText("kept.txt")).isEqualTo("still here\n");
        assertThat(after.shell().run("echo $((6*7))").stdout()).isEqualTo("42\n");
        assertThat(after.shell().run("ps -eo comm= | grep -c '^sleep$' || true").stdout().strip())
                .as("commands running at the detach were killed (docs/reattach.md)").isEqualTo("0");
        assertThat(after.shell().processes().list()).isEmpty();
        assertThat(after.info().details().get("lease")).contains("attached");
        // and once more, through the relay this time (the second host detaches over the engine's exec)
        after.files().write("second.txt", "2");
        Sandbox third = reattached();
        assertThat(third.files().readText("second.txt")).isEqualTo("2");
    }

    @Test
    void attach_wrongCredential_isRefusedAndChangesNothing() {
        Sandbox s = reattached();
        s.detach();
        current.set(null);
        AttachCredential wrong = AttachCredential.generate();
        assertThatThrownBy(() -> attach(id, wrong))
                .isInstanceOfSatisfying(SandboxException.class, e -> {
                    assertThat(e.kind()).isEqualTo(ErrorKind.PERMISSION_DENIED);
                    assertThat(e.getMessage()).doesNotContain(wrong.reveal().substring(6, 20))
                            .doesNotContain(credential.reveal().substring(6, 20));
                });
        Sandbox again = attach(id, credential);
        current.set(again);
        assertThat(again.files().readText("kept.txt")).isEqualTo("still here\n");
    }

    @Test
    void attach_whileAnotherHostIsAttached_isConflict() {
        Sandbox holder = current.get() != null && current.get().isOpen() ? current.get() : reattached();
        assertThatThrownBy(() -> attach(id, credential))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(ErrorKind.CONFLICT));
        assertThat(holder.shell().run("echo still mine").stdout()).isEqualTo("still mine\n");
    }

    @Test
    void attach_unknownOrMalformedId_isTyped() {
        DockerTestSupport.requireDocker();
        assertThatThrownBy(() -> attach("sbx-0123456789ab", credential))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(ErrorKind.NOT_FOUND));
        assertThatThrownBy(() -> attach("../etc", credential))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(ErrorKind.INVALID_ARGUMENT));
    }

    @Test
    void credential_isASecret() {
        assertThat(credential.toString()).doesNotContain(credential.reveal().substring(6));
        assertThat(AttachCredential.parse(credential.reveal())).isEqualTo(credential);
        assertThatThrownBy(() -> AttachCredential.parse("sbxa1.nothex"))
                .isInstanceOfSatisfying(SandboxException.class, e -> assertThat(e.kind())
                        .isEqualTo(ErrorKind.INVALID_ARGUMENT)).hasMessageNotContaining("nothex");
    }
}
