/*
 * The TCP connector's C unit tests (run by run-c-tests.sh): HMAC-SHA256 against RFC 4231's test cases, so the
 * agent's handshake computes what the host's javax.crypto.Mac does. The handshake itself runs end to end against the
 * built binary in sandbox-kubernetes (AgentConnectorTest); a leased agent's wait (sbx_await_host) ends at its deadline
 * (the lease end to end: sandbox-core's AgentLeaseTest).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "check.h"
#include "sbx-listen.h"

static int hex_is(const unsigned char *mac, size_t n, const char *hex)
{
    char buf[129];
    for (size_t i = 0; i < n; i++)
        snprintf(buf + 2 * i, 3, "%02x", mac[i]);
    return strcmp(buf, hex) == 0;
}

/* RFC 4231 4.2: a 20-byte key of 0x0b, "Hi There" (split in two, as the handshake passes label and nonce). */
static void rfc4231_case_1(void)
{
    unsigned char key[20], mac[32];
    memset(key, 0x0b, sizeof key);
    sbx_hmac_sha256(key, sizeof key, (const unsigned char *) "Hi ", 3, (const unsigned char *) "There", 5, mac);
    CHECK(hex_is(mac, 32, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"));
}

/* RFC 4231 4.3: key "Jefe". */
static void rfc4231_case_2(void)
{
    unsigned char mac[32];
    const char *data = "what do ya want for nothing?";
    sbx_hmac_sha256((const unsigned char *) "Jefe", 4, (const unsigned char *) data, strlen(data), NULL, 0, mac);
    CHECK(hex_is(mac, 32, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
}

/* RFC 4231 4.7: a 131-byte key (hashed first), 152 bytes of data (more than one block). */
static void rfc4231_case_7_long_key_and_data(void)
{
    unsigned char key[131], mac[32];
    memset(key, 0xaa, sizeof key);
    const char *data = "This is a test using a larger than block-size key and a larger than block-size data. The key "
                       "needs to be hashed before being used by the HMAC algorithm.";
    sbx_hmac_sha256(key, sizeof key, (const unsigned char *) data, 100, (const unsigned char *) data + 100,
                    strlen(data) - 100, mac);
    CHECK(hex_is(mac, 32, "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"));
}

/* A leased agent's wait (sbx_await_host): with no host before the deadline, it says so (1) and leaves fd 0/1 alone. */
static void await_host_ends_at_its_deadline(void)
{
    unsigned char key[32] = { 0 };
    CHECK(sbx_open_listener("not-an-address") < 0);
    int lfd = -1;
    char addr[32];
    for (int port = 47000 + (getpid() % 1000); lfd < 0 && port < 49000; port += 7) {
        snprintf(addr, sizeof addr, "127.0.0.1:%d", port);
        lfd = sbx_open_listener(addr);
    }
    CHECK_OR_STOP(lfd >= 0);
    long long start = sbx_ms_now();
    CHECK(sbx_await_host(lfd, key, start + 150) == 1);
    CHECK(sbx_ms_now() >= start + 150);
    CHECK(fcntl(lfd, F_GETFD) >= 0); /* the listener stays: the lease's port is never given up */
    close(lfd);
}

int main(void)
{
    RUN(rfc4231_case_1);
    RUN(rfc4231_case_2);
    RUN(rfc4231_case_7_long_key_and_data);
    RUN(await_host_ends_at_its_deadline);
    return checks_done();
}
