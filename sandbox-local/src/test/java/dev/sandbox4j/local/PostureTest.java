package dev.sandbox4j.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Sandbox;
import org.junit.jupiter.api.Test;

/** Fails on drift of the jail's security posture. */
class PostureTest {
    static final String PROBE = String.join("\n",
            "import ctypes, os, socket",
            "st = dict(l.split(':', 1) for l in open('/proc/self/status').read().splitlines() if ':' in l)",
            "print('uid', os.getuid())",
            "print('CapEff', st['CapEff'].strip())",
            "print('CapBnd', st['CapBnd'].strip())",
            "print('NoNewPrivs', st['NoNewPrivs'].strip())",
            "print('Seccomp', st['Seccomp'].strip())",
            "libc = ctypes.CDLL(None, use_errno=True)",
            "def sc(nr, *a):",
            "    r = libc.syscall(nr, *a)",
            "    return 'ok' if r >= 0 else 'errno%d' % ctypes.get_errno()",
            "p = (ctypes.c_char * 256)()",
            "print('io_uring_setup', sc(425, 1, p))",
            "print('keyctl', sc(250, 0, 0, 0, 0, 0))",
            "print('add_key', sc(248, b'user', b'x', b'y', 1, -2))",
            "print('unshare', sc(272, 0x10000000))",
            "print('ptrace', sc(101, 16, 1, 0, 0))",
            "try:",
            "    socket.socket(40, socket.SOCK_STREAM); print('vsock ok')",
            "except OSError as e: print('vsock errno%d' % e.errno)",
            "try:",
            "    open('/usr/evil', 'w'); print('write /usr ok')",
            "except OSError as e: print('write /usr errno%d' % e.errno)",
            "try:",
            "    open('/evil', 'w'); print('write / ok')",
            "except OSError as e: print('write / errno%d' % e.errno)",
            "print('hostname', socket.gethostname())");

    @Test
    void jailPostureHolds() {
        try (Sandbox s = Jail.open()) {
            ExecResult r = s.code().run("python", PROBE).exec();
            String out = r.stdout();
            assertThat(r.exitCode()).as(r.stderr()).isZero();
            assertThat(out).doesNotContain("uid 0\n")
                    .contains("CapEff 0000000000000000", "CapBnd 0000000000000000", "NoNewPrivs 1", "Seccomp 2")
                    .contains("io_uring_setup errno38", "keyctl errno1", "add_key errno1", "unshare errno1",
                            "ptrace errno1", "vsock errno97", "write /usr errno30", "write / errno30",
                            "hostname sandbox");
            assertThat(s.shell().run("cat /sys/fs/cgroup/pids.max 2>/dev/null; ulimit -n; ulimit -c").stdout())
                    .contains("1024");
            assertThat(s.info().limits().maxProcesses()).isEqualTo(256);
            assertThat(s.info().limits().memoryBytes() > 0).as("memory limit reported where it holds")
                    .isEqualTo(Jail.limitsHere().memory());
        }
    }
}
