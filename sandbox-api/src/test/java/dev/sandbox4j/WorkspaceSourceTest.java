package dev.sandbox4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkspaceSourceTest {
    @Test
    void defaults_emptyWorkspaceNoMounts() {
        assertThat(SandboxSpec.defaults().workspace()).isEqualTo(WorkspaceSource.empty());
        assertThat(SandboxSpec.defaults().workspace().hostDir()).isEmpty();
        assertThat(SandboxSpec.defaults().workspace().feature()).isNull();
        assertThat(SandboxSpec.defaults().mounts()).isEmpty();
    }

    @Test
    void sources_areAbsoluteNormalAndCarryTheirFeature() {
        WorkspaceSource s = WorkspaceSource.overlayOf(Path.of("/a/b/../c"));
        assertThat(s.hostDir()).contains(Path.of("/a/c"));
        assertThat(s.kind()).isEqualTo(WorkspaceSource.Kind.OVERLAY);
        assertThat(s.feature()).isEqualTo(Feature.WORKSPACE_OVERLAY);
        assertThat(WorkspaceSource.copyOf(Path.of("/x")).feature()).isEqualTo(Feature.WORKSPACE_COPY);
        assertThat(WorkspaceSource.bindReadWrite(Path.of("/x")).feature()).isEqualTo(Feature.WORKSPACE_BIND);
        assertThat(s).isEqualTo(WorkspaceSource.overlayOf(Path.of("/a/c"))).hasToString("overlay:/a/c");
        assertThat(s).isNotEqualTo(WorkspaceSource.copyOf(Path.of("/a/c")));
    }

    @Test
    void spec_keepsSourceAndMountsThroughToBuilder() {
        SandboxSpec spec = SandboxSpec.builder().workspace(WorkspaceSource.copyOf(Path.of("/src")))
                .mount(Mount.readOnly(Path.of("/data"), "/workspace/data")).mount(Mount.scratch("/cache")).build();
        SandboxSpec again = spec.toBuilder().build();
        assertThat(again.workspace()).isEqualTo(spec.workspace());
        assertThat(again.mounts()).containsExactly(Mount.readOnly(Path.of("/data"), "/workspace/data"),
                Mount.scratch("/cache"));
        assertThat(spec.toString()).contains("workspace=copy:/src", "ro:/data -> /workspace/data", "scratch:/cache");
    }

    @Test
    void mount_badPaths_refused() {
        for (String bad : List.of("rel", "/", "/workspace", "/usr/x", "/etc", "/a/../b", "/a/", "/a//b", "/opt",
                "/proc/1", "/a'b")) {
            assertThatThrownBy(() -> Mount.scratch(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> new Mount(Mount.Kind.SCRATCH, Path.of("/x"), "/y"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Mount(Mount.Kind.READ_ONLY, null, "/y"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void mount_overlapping_refused() {
        SandboxSpec.Builder b = SandboxSpec.builder().mount(Mount.scratch("/a/b"));
        assertThatThrownBy(() -> b.mount(Mount.scratch("/a"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.mount(Mount.scratch("/a/b/c"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.mount(Mount.scratch("/a/b"))).isInstanceOf(IllegalArgumentException.class);
        assertThat(b.mount(Mount.scratch("/a/bc")).build().mounts()).hasSize(2);
    }

    @Test
    void change_kindMustMatchItsStates() {
        FileInfo f = FileInfo.file("a", 1, 0644, java.time.Instant.EPOCH);
        assertThat(new Workspace.Change(Workspace.Change.Kind.CREATED, "a", null, f).after()).isSameAs(f);
        assertThatThrownBy(() -> new Workspace.Change(Workspace.Change.Kind.CREATED, "a", f, f))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Workspace.Change(Workspace.Change.Kind.DELETED, "a", f, f))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Workspace.Change(Workspace.Change.Kind.MODIFIED, "a", null, f))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
