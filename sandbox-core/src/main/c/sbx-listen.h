/*
 * The agent's TCP connector (sbx-listen.c): for a sandbox whose host is not its parent (a Kubernetes pod), the agent
 * listens on a TCP address and serves the frame protocol over the one connection that proves it holds the pool's key.
 */
#ifndef SBX_LISTEN_H
#define SBX_LISTEN_H

#include <stddef.h>

/*
 * Reads the 32-byte key (64 hex digits) from the environment variable key_env, removes it from the environment and
 * wipes its bytes (commands inherit the environment; /proc/1/environ shows the original block), then listens on
 * addr ("HOST:PORT" or ":PORT"; IPv4 or IPv6) and accepts connections until one completes the handshake; puts that
 * connection on fd 0 and fd 1 and closes the listener. Returns 0, or a non-zero exit status after saying why.
 */
int listen_for_host(const char *addr, const char *key_env);

/* A TCP listener on addr (as --listen's), or -1 after saying why; for a leased agent (sbx-lease.c). */
int sbx_open_listener(const char *addr);

/*
 * Serves handshakes under key on lfd (left open) until one succeeds, then puts that connection on fd 0 and fd 1:
 * 0; 1 once deadline_ms (sbx_ms_now's clock, -1 none) passed first; -1 after saying why it failed.
 */
int sbx_await_host(int lfd, const unsigned char key[32], long long deadline_ms);
long long sbx_ms_now(void);

/* HMAC-SHA256 of the concatenation of a and b (either may be empty) under key; exposed for the tests. */
void sbx_hmac_sha256(const unsigned char *key, size_t key_len, const unsigned char *a, size_t a_len,
                     const unsigned char *b, size_t b_len, unsigned char out[32]);

#endif
