package dev.sandbox4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link RawOutput} and the bytes {@link ExecResult} and {@link OutputListener} carry (issue 36). */
class RawOutputTest {
    private static final byte[] ODD = {(byte) 0xFF, (byte) 0xFE, 0, 'o', 'k', '\n'};

    @Test
    void whole_keepsEveryByte_andCopiesInAndOut() {
        byte[] in = ODD.clone();
        RawOutput raw = RawOutput.of(in);
        in[0] = 'x';
        assertThat(raw.bytes()).isEqualTo(ODD);
        assertThat(raw.head()).isEqualTo(ODD);
        assertThat(raw.tail()).isEmpty();
        raw.bytes()[0] = 'y';
        raw.head()[0] = 'y';
        assertThat(raw.bytes()).as("no array of the value leaks").isEqualTo(ODD);
        assertThat(raw.truncated()).isFalse();
        assertThat(raw.omittedBytes()).isZero();
        assertThat(raw.totalBytes()).isEqualTo(6);
        assertThat(raw).hasToString("RawOutput[6 bytes]");
    }

    @Test
    void cut_keepsHeadAndTailApart_withTheCount() {
        byte[] head = {1, 2};
        byte[] tail = {8, 9};
        RawOutput raw = RawOutput.of(head, 5, tail);
        head[0] = 0;
        tail[0] = 0;
        assertThat(raw.truncated()).isTrue();
        assertThat(raw.head()).containsExactly(1, 2);
        assertThat(raw.tail()).containsExactly(8, 9);
        assertThat(raw.omittedBytes()).isEqualTo(5);
        assertThat(raw.totalBytes()).isEqualTo(9);
        assertThat(raw.bytes()).containsExactly(1, 2, 8, 9);
        assertThat(raw).hasToString("RawOutput[2 + 5 omitted + 2 bytes]");
    }

    @Test
    void nothingOmitted_isTheWholeStream_equalToOf() {
        assertThat(RawOutput.of(new byte[] {1, 2}, 0, new byte[] {3})).isEqualTo(RawOutput.of(new byte[] {1, 2, 3}))
                .hasSameHashCodeAs(RawOutput.of(new byte[] {1, 2, 3}));
        assertThat(RawOutput.of(new byte[0])).isEqualTo(RawOutput.empty());
        assertThat(RawOutput.empty().totalBytes()).isZero();
    }

    @Test
    void equality_byContent() {
        assertThat(RawOutput.of(ODD)).isEqualTo(RawOutput.of(ODD.clone())).hasSameHashCodeAs(RawOutput.of(ODD));
        assertThat(RawOutput.of(new byte[] {1}, 1, new byte[] {2}))
                .isNotEqualTo(RawOutput.of(new byte[] {1}, 2, new byte[] {2}))
                .isNotEqualTo(RawOutput.of(new byte[] {1, 2}));
    }

    @Test
    void negativeCount_orNull_refused() {
        assertThatThrownBy(() -> RawOutput.of(new byte[0], -1, new byte[0]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("omittedBytes (-1)");
        assertThatThrownBy(() -> RawOutput.of(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void scriptedResult_carriesTheUtf8OfItsText() {
        ExecResult r = ExecResult.of(0, "héllo\n", "err");
        assertThat(r.rawStdout()).isEqualTo(RawOutput.of("héllo\n".getBytes(StandardCharsets.UTF_8)));
        assertThat(r.rawStderr().bytes()).isEqualTo("err".getBytes(StandardCharsets.UTF_8));
        assertThat(r.stdoutTruncation()).as("bytes, not characters").isEqualTo(Truncation.none(7));
        ExecResult eight = new ExecResult(ExecStatus.COMPLETED, 0, "a", "é", Duration.ZERO, Truncation.none(1),
                Truncation.none(2), "");
        assertThat(eight.rawStdout().bytes()).containsExactly('a');
        assertThat(eight.rawStderr().totalBytes()).isEqualTo(2);
    }

    @Test
    void withers_keepTheBytes_andWithRawOutputSetsThem() {
        RawOutput out = RawOutput.of(ODD);
        ExecResult r = ExecResult.of(0, "\uFFFD\uFFFD\0ok\n", "").withRawOutput(out, RawOutput.empty())
                .withDuration(Duration.ofSeconds(1)).withDetail("d").withTruncation(Truncation.none(6),
                        Truncation.none(0));
        assertThat(r.rawStdout()).isEqualTo(out);
        assertThat(r.rawStderr()).isEqualTo(RawOutput.empty());
        assertThat(r).isEqualTo(ExecResult.of(0, "\uFFFD\uFFFD\0ok\n", "").withRawOutput(out, RawOutput.empty())
                .withDuration(Duration.ofSeconds(1)).withDetail("d").withTruncation(Truncation.none(6),
                        Truncation.none(0)));
        assertThat(r).as("the bytes count in equality").isNotEqualTo(ExecResult.of(0, "\uFFFD\uFFFD\0ok\n", "")
                .withDuration(Duration.ofSeconds(1)).withDetail("d").withTruncation(Truncation.none(6),
                        Truncation.none(0)));
    }

    @Test
    void listener_bytesCallbacks_doNothingByDefault_andOfBytesPassesChunks() {
        OutputListener.NONE.onStdoutBytes(ODD);
        OutputListener.of(t -> { }, t -> { }).onStderrBytes(ODD);
        List<byte[]> out = new ArrayList<>();
        List<byte[]> err = new ArrayList<>();
        OutputListener l = OutputListener.ofBytes(out::add, err::add);
        l.onStdoutBytes(ODD);
        l.onStderrBytes(new byte[] {7});
        l.onStdout("text is not passed on");
        assertThat(out).containsExactly(ODD);
        assertThat(err).hasSize(1);
    }
}
