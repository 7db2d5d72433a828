/*
 * check.h: the smallest test runner that serves the agent's C unit tests. A test is a `static void name(void)`
 * listed in main with RUN(name); CHECK(cond) and its variants record a failure (with file and line) and let the
 * test go on; a failed CHECK_OR_STOP returns from the test. Each test runs in a child process of its own (fresh
 * state, and a crash, a sanitizer report or a hang past CHECK_TIMEOUT seconds fails that test only), as a child
 * subreaper, so whatever the programs it starts leave behind is re-parented to it. checks_done() prints
 * "N passed, N failed" (tests, not checks) and returns main's exit status.
 */
#ifndef SBX_CHECK_H
#define SBX_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_TIMEOUT 120

static int check_failures_here; /* failed checks in the running test */
static int checks_passed, checks_failed;
static const char *check_test;

#define CHECK_FAIL(...)                                                                                       \
    do {                                                                                                      \
        check_failures_here++;                                                                                \
        fprintf(stderr, "FAIL %s (%s:%d): ", check_test, __FILE__, __LINE__);                                 \
        fprintf(stderr, __VA_ARGS__);                                                                         \
        fputc('\n', stderr);                                                                                  \
    } while (0)

#define CHECK(cond)                                                                                           \
    do {                                                                                                      \
        if (!(cond))                                                                                          \
            CHECK_FAIL("%s", #cond);                                                                          \
    } while (0)

#define CHECK_OR_STOP(cond)                                                                                   \
    do {                                                                                                      \
        if (!(cond)) {                                                                                        \
            CHECK_FAIL("%s (test stopped)", #cond);                                                           \
            return;                                                                                           \
        }                                                                                                     \
    } while (0)

#define CHECK_EQ(a, b)                                                                                        \
    do {                                                                                                      \
        long long check_a_ = (long long) (a), check_b_ = (long long) (b);                                     \
        if (check_a_ != check_b_)                                                                             \
            CHECK_FAIL("%s == %s: %lld != %lld", #a, #b, check_a_, check_b_);                                 \
    } while (0)

#define CHECK_STR(a, b)                                                                                       \
    do {                                                                                                      \
        const char *check_a_ = (a), *check_b_ = (b);                                                          \
        if (check_a_ == NULL || check_b_ == NULL || strcmp(check_a_, check_b_) != 0)                          \
            CHECK_FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b, check_a_ ? check_a_ : "(null)",                  \
                       check_b_ ? check_b_ : "(null)");                                                       \
    } while (0)

#define CHECK_BYTES(a, alen, b, blen)                                                                         \
    do {                                                                                                      \
        size_t check_al_ = (alen), check_bl_ = (blen);                                                        \
        if (check_al_ != check_bl_ || memcmp((a), (b), check_al_) != 0)                                       \
            CHECK_FAIL("%s (%zu bytes) == %s (%zu bytes): contents differ", #a, check_al_, #b, check_bl_);    \
    } while (0)

#define RUN(test)                                                                                             \
    do {                                                                                                      \
        check_test = #test;                                                                                   \
        fflush(stdout);                                                                                       \
        fflush(stderr);                                                                                       \
        pid_t check_pid_ = fork();                                                                            \
        if (check_pid_ == 0) {                                                                                \
            prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);                                                        \
            alarm(CHECK_TIMEOUT);                                                                             \
            check_failures_here = 0;                                                                          \
            test();                                                                                           \
            fflush(stderr);                                                                                   \
            exit(check_failures_here == 0 ? 0 : 1);                                                           \
        }                                                                                                     \
        int check_status_ = 0;                                                                                \
        if (check_pid_ > 0 && waitpid(check_pid_, &check_status_, 0) == check_pid_ && WIFEXITED(check_status_) \
            && WEXITSTATUS(check_status_) == 0) {                                                             \
            checks_passed++;                                                                                  \
            printf("ok   %s\n", #test);                                                                       \
        } else {                                                                                              \
            checks_failed++;                                                                                  \
            if (check_pid_ > 0 && WIFSIGNALED(check_status_))                                                 \
                printf("FAIL %s (killed by signal %d)\n", #test, WTERMSIG(check_status_));                    \
            else                                                                                              \
                printf("FAIL %s\n", #test);                                                                   \
        }                                                                                                     \
        fflush(stdout);                                                                                       \
    } while (0)

static int checks_done(void)
{
    printf("%d passed, %d failed\n", checks_passed, checks_failed);
    return checks_failed == 0 && checks_passed > 0 ? 0 : 1;
}
#endif
