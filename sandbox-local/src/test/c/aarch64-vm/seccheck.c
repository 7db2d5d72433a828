/* Loads a seccomp program file into the kernel and checks what a few syscalls get. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static int passed, failed;

static void expect(const char *what, long rc, int want_errno)
{
    int e = rc < 0 ? errno : 0;
    int ok = want_errno ? (rc < 0 && e == want_errno) : rc >= 0;
    printf("%s seccomp %s: rc %ld errno %s\n", ok ? "PASS" : "FAIL", what, rc, e ? strerror(e) : "-");
    if (ok) passed++; else failed++;
}

int seccheck(const char *file)
{
    static unsigned char buf[65536];
    int fd = open(file, O_RDONLY);
    if (fd < 0) { perror(file); return 1; }
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    struct sock_fprog prog = { (unsigned short) (n / 8), (struct sock_filter *) buf };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
        printf("FAIL seccomp: kernel refused the program: %s\n", strerror(errno));
        return 1;
    }
    printf("seccomp program of %zd instructions loaded\n", n / 8);
    expect("unshare(CLONE_NEWPID) EPERM", syscall(SYS_unshare, CLONE_NEWPID), EPERM);
    expect("ptrace EPERM", syscall(SYS_ptrace, 0, 0, 0, 0), EPERM);
    expect("keyctl EPERM", syscall(SYS_keyctl, 0, 0, 0, 0, 0), EPERM);
    expect("mount EPERM", syscall(SYS_mount, "none", "/nonexistent", "tmpfs", 0, 0), EPERM);
    expect("io_uring_setup EPERM", syscall(SYS_io_uring_setup, 1, NULL), EPERM);
    expect("socket(AF_VSOCK) EAFNOSUPPORT", socket(40, SOCK_STREAM, 0), EAFNOSUPPORT);
    expect("socket(AF_ALG) EAFNOSUPPORT", socket(38, SOCK_SEQPACKET, 0), EAFNOSUPPORT);
    expect("socket(AF_UNIX) allowed", socket(AF_UNIX, SOCK_STREAM, 0), 0);
    expect("ioctl(TIOCSTI) EPERM", syscall(SYS_ioctl, 0, 0x5412UL, NULL), EPERM);
    expect("ioctl(TIOCSTI | high bits) EPERM", syscall(SYS_ioctl, 0, 0xdead000000005412UL, NULL), EPERM);
    expect("ioctl(-1, TCGETS) reaches the kernel: EBADF", syscall(SYS_ioctl, -1, 0x5401UL, NULL), EBADF);
    expect("getpid allowed", syscall(SYS_getpid), 0);
    expect("openat allowed", syscall(SYS_openat, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY), 0);
    printf("RESULT seccomp: %d passed, %d failed\n", passed, failed);
    return failed != 0;
}

#ifndef NO_MAIN
int main(int argc, char **argv)
{
    return argc == 2 ? seccheck(argv[1]) : 2;
}
#endif
