package dev.sandbox4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.SandboxException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The output window of {@link ProcessTable}: absolute cursors over the latest bytes, what fell out counted, a
 * character still arriving held back. (The table itself runs in the kit's ProcessRegistryContract on every backend.)
 */
class ProcessTableWindowTest {
    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void readsFromAnyCursor_andCountsWhatFellOut() {
        ProcessTable.Window w = new ProcessTable.Window(8);
        w.append(b("abcd"));
        w.append(b("efgh"));
        assertThat(w.from(0, false).text()).isEqualTo("abcdefgh");
        assertThat(w.from(6, false).text()).isEqualTo("gh");
        w.append(b("ij"));
        ProcessTable.Window.Slice s = w.from(0, false);
        assertThat(s.text()).isEqualTo("cdefghij");
        assertThat(s.skipped()).isEqualTo(2);
        assertThat(s.next()).isEqualTo(10);
        assertThat(w.from(10, false).text()).isEmpty();
        w.append(b("0123456789xy")); // one chunk larger than the window keeps its last 8 bytes
        assertThat(w.from(10, false).text()).isEqualTo("456789xy");
        assertThat(w.from(10, false).skipped()).isEqualTo(4);
        assertThatThrownBy(() -> w.from(23, false)).isInstanceOf(SandboxException.class)
                .matches(e -> ((SandboxException) e).kind() == ErrorKind.INVALID_ARGUMENT);
    }

    @Test
    void growsToItsCapacity_inManySmallChunks() {
        ProcessTable.Window w = new ProcessTable.Window(10_000);
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < 3000; i++) {
            String line = i + "\n";
            all.append(line);
            w.append(b(line));
        }
        String kept = w.from(0, false).text();
        assertThat(kept).hasSize(10_000);
        assertThat(all.toString()).endsWith(kept);
    }

    @Test
    void aCharacterStillArriving_isHeldBackUntilItIsWhole() {
        ProcessTable.Window w = new ProcessTable.Window(64);
        byte[] euro = b("\u20ac"); // three bytes
        w.append(new byte[] {'a', euro[0], euro[1]});
        ProcessTable.Window.Slice s = w.from(0, true);
        assertThat(s.text()).isEqualTo("a");
        assertThat(s.next()).isEqualTo(1);
        w.append(new byte[] {euro[2]});
        assertThat(w.from(s.next(), true).text()).isEqualTo("\u20ac");
        assertThat(ProcessTable.Window.wholeCharacters(b("ok\u00e9"))).isEqualTo(4);
    }
}
