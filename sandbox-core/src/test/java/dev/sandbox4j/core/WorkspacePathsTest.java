package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WorkspacePathsTest {
    @Test
    void normalize_relativeAbsoluteAndDots() {
        assertThat(WorkspacePaths.normalize("a/./b/../c")).isEqualTo("a/c");
        assertThat(WorkspacePaths.normalize("/workspace/src/app.py")).isEqualTo("src/app.py");
        assertThat(WorkspacePaths.normalize("")).isEmpty();
        assertThat(WorkspacePaths.normalize("/workspace")).isEmpty();
        assertThat(WorkspacePaths.normalize("a//b/")).isEqualTo("a/b");
        assertThat(WorkspacePaths.absolute("x/y")).isEqualTo("/workspace/x/y");
    }

    @ParameterizedTest
    @ValueSource(strings = {"..", "../x", "a/../../x", "/etc/passwd", "/workspace/../etc", "/workspacex/a", "a\0b"})
    void escapingOrMalformed_isInvalidPath(String path) {
        assertThatThrownBy(() -> WorkspacePaths.normalize(path))
                .isInstanceOfSatisfying(SandboxException.class,
                        e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_PATH));
    }

    @Test
    void overLongSegmentOrPath_isInvalidPath() {
        assertThatThrownBy(() -> WorkspacePaths.normalize("a".repeat(256)))
                .isInstanceOfSatisfying(SandboxException.class,
                        e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_PATH));
        assertThatThrownBy(() -> WorkspacePaths.normalize("abc/".repeat(1100)))
                .isInstanceOfSatisfying(SandboxException.class,
                        e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_PATH));
        assertThat(WorkspacePaths.normalize("é".repeat(127))).hasSize(127);
    }

    @Test
    void requireNonRoot_rejectsRoot() {
        assertThatThrownBy(() -> WorkspacePaths.requireNonRoot("."))
                .isInstanceOfSatisfying(SandboxException.class,
                        e -> assertThat(e.kind()).isEqualTo(ErrorKind.INVALID_PATH));
    }

    @Test
    void walkOrderIsDepthFirstWithNamesSorted() {
        List<String> paths = new java.util.ArrayList<>(List.of("b.txt", "a.txt", "a-b.txt", "a/z.txt", "a/b/c.txt",
                "A.txt", "a/b", "a"));
        paths.sort(WorkspacePaths::walkOrder);
        assertThat(paths).containsExactly("A.txt", "a", "a/b", "a/b/c.txt", "a/z.txt", "a-b.txt", "a.txt", "b.txt");
        assertThat(WorkspacePaths.walkOrder("x/y", "x/y")).isZero();
    }
}
