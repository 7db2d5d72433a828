package dev.sandbox4j.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.WorkspaceSource;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * Issue 35's named volumes ({@link WorkspaceSource#volume}), gated by {@link Feature#WORKSPACE_VOLUME}: made on first
 * use, shared by sandboxes open on it at once, kept after close, removed only when asked and not while in use. Each
 * test uses a volume of its own (a random name) and removes it.
 */
public interface WorkspaceVolumeContract extends ConformanceSupport {
    private static String name() {
        return "kit-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1);
    }

    /** A volume is kept across sandboxes: no per-sandbox quota can bound it. */
    private static SandboxSpec on(String volume) {
        return SandboxSpec.builder().limits(ResourceLimits.DEFAULTS.withoutWorkspaceQuota())
                .workspace(WorkspaceSource.volume(volume)).build();
    }

    private static ErrorKind kindOf(Runnable call) {
        SandboxException e = catchThrowableOfType(call::run, SandboxException.class);
        return e == null ? null : e.kind();
    }

    @Test
    @Requires(Feature.WORKSPACE_VOLUME)
    default void volume_twoSandboxesAtOnce_seeEachOthersWrites_andItOutlivesThem() {
        String v = name();
        try {
            try (Sandbox a = fixture().open(on(v)); Sandbox b = fixture().open(on(v))) {
                assertThat(a.info().details().get("workspace source")).contains("volume " + v, "made now");
                a.files().write("from-a.txt", "hello from a\n");
                assertThat(b.files().readText("from-a.txt")).isEqualTo("hello from a\n");
                if (supports(Feature.SHELL)) {
                    ExecResult r = b.shell().run("echo from b > from-b.txt && cat from-a.txt");
                    assertThat(r.stdout()).as(r.stderr()).isEqualTo("hello from a\n");
                    assertThat(a.files().readText("from-b.txt")).isEqualTo("from b\n");
                }
                assertThat(kindOf(() -> a.workspace().changes())).as("nobody's copy: no change set")
                        .isEqualTo(ErrorKind.UNSUPPORTED);
                assertThat(kindOf(() -> fixture().removeVolume(v))).as("not while in use")
                        .isEqualTo(ErrorKind.CONFLICT);
            }
            try (Sandbox later = fixture().open(on(v))) {
                assertThat(later.info().details().get("workspace source")).contains("kept");
                assertThat(later.files().readText("from-a.txt")).isEqualTo("hello from a\n");
            }
            fixture().removeVolume(v);
            assertThat(kindOf(() -> fixture().removeVolume(v))).isEqualTo(ErrorKind.NOT_FOUND);
            try (Sandbox fresh = fixture().open(on(v))) {
                assertThat(fresh.files().exists("from-a.txt")).as("removed means gone").isFalse();
            }
        } finally {
            try {
                fixture().removeVolume(v);
            } catch (SandboxException e) {
                // already removed
            }
        }
    }

    @Test
    @Requires(Feature.WORKSPACE_VOLUME)
    default void volume_withAQuota_isRefusedTyped_badNamesNeverReachTheBackend() {
        assertThat(kindOf(() -> fixture().open(SandboxSpec.builder().workspace(WorkspaceSource.volume(name()))
                .build()).close())).isEqualTo(ErrorKind.UNSUPPORTED);
        for (String bad : new String[] {"", "../x", "a/b", "UPPER", ".hidden", "x".repeat(64), "nul\0"}) {
            assertThatThrownBy(() -> WorkspaceSource.volume(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    @Requires(absent = Feature.WORKSPACE_VOLUME)
    default void volume_withoutFeature_refusedAtOpenUnsupported() {
        assertThat(kindOf(() -> fixture().open(on(name())).close())).isEqualTo(ErrorKind.UNSUPPORTED);
    }
}
