/* Calls getpid through another ABI: "x32" (x86_64's x32 bit) or "i386" (int 0x80); the filter must kill it. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
    long r = -2;
    if (argc > 1 && strcmp(argv[1], "x32") == 0)
        r = syscall(0x40000000 | 39);
    else if (argc > 1 && strcmp(argv[1], "i386") == 0)
        __asm__ volatile("int $0x80" : "=a"(r) : "a"(20) : "memory");
    printf("survived %ld\n", r);
    return 0;
}
