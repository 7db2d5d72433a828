package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.ForwardingFileSystem;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.memory.MemorySandbox;
import org.junit.jupiter.api.Test;

/** A write that fails midway through a patch: the files already written are put back, nothing else changes. */
class CodexApplyPatchRollbackTest {
    @Test
    void aWriteFailingMidway_putsBackWhatWasWritten() {
        try (MemorySandbox sandbox = MemorySandbox.open()) {
            FileSystem real = sandbox.files();
            real.write("a.txt", "a1\n");
            real.write("b.txt", "b1\n");
            FileSystem failing = new ForwardingFileSystem() {
                @Override
                protected FileSystem delegate() {
                    return real;
                }

                @Override
                public void write(String path, String text) {
                    if (path.equals("c.txt")) {
                        throw new SandboxException(ErrorKind.NO_SPACE_LEFT, "disk full");
                    }
                    real.write(path, text);
                }
            };
            String patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-a1\n+a2\n*** Delete File: b.txt\n"
                    + "*** Add File: c.txt\n+c\n*** End Patch";
            assertThatThrownBy(() -> new ApplyPatch(failing, 1 << 20).apply(V4aPatch.parse(patch)))
                    .isInstanceOf(SandboxException.class).hasMessageContaining("disk full");
            assertThat(real.readText("a.txt")).isEqualTo("a1\n");
            assertThat(real.readText("b.txt")).isEqualTo("b1\n");
            assertThat(real.exists("c.txt")).isFalse();
        }
    }
}
