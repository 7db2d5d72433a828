package dev.sandbox4j.core;

import dev.sandbox4j.SandboxException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** The streams between {@link AgentWorkspace} and its operations: a write's chunked content, the caller's sink. */
final class FileStreams {
    private FileStreams() {
    }


    /** An operation's failure decided on the host while its output streamed (a sink's): thrown as it is. */
    static final class Refused extends IOException {
        final transient SandboxException error;

        Refused(SandboxException error) {
            super(error.getMessage(), error);
            this.error = error;
        }
    }

    /** The content went past the file size limit. */
    static final class OverLimit extends IOException {
        OverLimit() {
            super("over the file size limit");
        }
    }

    /** The caller's sink: its runtime failures end the operation (as IOExceptions) instead of leaving it running. */
    static final class Guarded extends OutputStream {
        private final OutputStream out;

        Guarded(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            try {
                out.write(b, off, len);
            } catch (SandboxException e) {
                throw new Refused(e);
            } catch (RuntimeException e) {
                throw new IOException("the sink failed: " + e, e);
            }
        }
    }

    /**
     * A write's content as the operation reads it: chunks ({@code int} length + bytes), then an empty chunk only once
     * {@code in} ended: a source that fails (or goes past {@code limit}) leaves the content without its end mark, and
     * the operation commits nothing.
     */
    static final class Chunked extends InputStream {
        private final InputStream in;
        private final long limit;
        private final byte[] chunk = new byte[4 + AgentWorkspace.CHUNK];
        private int pos;
        private int len;
        private long count;
        private boolean ended;

        Chunked(InputStream in, long limit) {
            this.in = in;
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int n) throws IOException {
            if (pos == len) {
                if (ended) {
                    return -1;
                }
                fill();
            }
            int take = Math.min(n, len - pos);
            System.arraycopy(chunk, pos, b, off, take);
            pos += take;
            return take;
        }

        private void fill() throws IOException {
            int got = in.readNBytes(chunk, 4, AgentWorkspace.CHUNK);
            count += got;
            if (count > limit) {
                throw new OverLimit();
            }
            chunk[0] = (byte) (got >>> 24);
            chunk[1] = (byte) (got >>> 16);
            chunk[2] = (byte) (got >>> 8);
            chunk[3] = (byte) got;
            pos = 0;
            len = 4 + got;
            ended = got == 0;
        }
    }
}
