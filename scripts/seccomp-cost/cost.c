/* Times what runc does with a seccomp profile at every container start: build the libseccomp filter and compile it
 * to BPF (seccomp_export_bpf; loading adds one prctl). CPU time of this process, interleaved across profiles. */
#include <seccomp.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

extern scmp_filter_ctx (*builders[])(void);
extern const char *labels[];
extern int count;

static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100;
    int null = open("/dev/null", O_WRONLY);
    double *t = calloc((size_t) count * n, sizeof *t);
    for (int i = -5; i < n; i++) {
        for (int k = 0; k < count; k++) {
            int b = ((i + k) % count + count) % count;
            double t0 = cpu_ms();
            scmp_filter_ctx c = builders[b]();
            if (c == NULL || seccomp_export_bpf(c, null) != 0) {
                fprintf(stderr, "%s: libseccomp failed\n", labels[b]);
                return 1;
            }
            seccomp_release(c);
            if (i >= 0) {
                t[b * n + i] = cpu_ms() - t0;
            }
        }
    }
    printf("| profile | BPF instructions | build + compile, CPU ms (median, p90 of %d) |\n|---|---|---|\n", n);
    for (int b = 0; b < count; b++) {
        qsort(t + b * n, n, sizeof *t, cmp);
        scmp_filter_ctx c = builders[b]();
        char path[] = "/tmp/sbx-seccomp-cost-XXXXXX";
        int fd = mkstemp(path);
        seccomp_export_bpf(c, fd);
        long size = lseek(fd, 0, SEEK_END);
        close(fd);
        unlink(path);
        seccomp_release(c);
        printf("| %s | %ld | %.2f, %.2f |\n", labels[b], size / 8, t[b * n + n / 2], t[b * n + n * 9 / 10]);
    }
    return 0;
}
