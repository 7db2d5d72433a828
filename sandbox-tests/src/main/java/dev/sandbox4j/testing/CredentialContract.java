package dev.sandbox4j.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecRequest;
import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Feature;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.NetworkPolicy.Credential;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;

/**
 * Brokered credentials end to end: a program in the sandbox calls {@code http://api.test/} with the placeholder it
 * finds in its environment; the host's proxy calls the kit's HTTPS fixture (a certificate for api.test, on loopback)
 * with the real value; the fixture echoes the key back, and the sandbox sees only the placeholder. Nothing in the
 * sandbox (its environment, its files, the answer) ever holds the secret.
 */
public interface CredentialContract extends ConformanceSupport {
    @Test
    @Requires({Feature.SHELL, Feature.CODE_EXECUTION})
    default void credential_reachesOnlyItsHost_andTheSandboxSeesOnlyThePlaceholder(Sandbox ignored) throws Exception {
        Path dir = Files.createTempDirectory("sandbox4j-kit-tls");
        String secret = "kit-SECRET-" + Long.toHexString(System.nanoTime()) + "-0123456789";
        try (KitHttps api = new KitHttps(dir, "api.test")) {
            InetSocketAddress at = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), api.port());
            Credential key = Credential.header("x-api-key", secret).forHost("api.test").onPort(api.port())
                    .exposedAs("API_KEY");
            NetworkPolicy policy = NetworkPolicy.allowDomains("api.test:" + api.port()).withCredential(key);
            try (AutoCloseable egress = fixture().egressForTests(name -> at.getAddress(), api.clientTls(), at);
                 Sandbox s = fixture().open(SandboxSpec.builder().network(policy).build())) {
                String program = "import os, urllib.request\n"
                        + "k = os.environ['API_KEY']\n"
                        + "r = urllib.request.urlopen(urllib.request.Request('http://api.test/v1/echo', "
                        + "headers={'x-api-key': k}), timeout=20)\n"
                        + "print('placeholder' if k == '" + key.placeholder() + "' else 'other', r.status, "
                        + "r.headers.get('x-echo'), r.read().decode())\n";
                ExecResult r = s.shell().run(ExecRequest.argv("python3", "-c", program)
                        .withTimeout(Duration.ofSeconds(60)));
                assertThat(r.stdout()).as(r.stderr()).isEqualTo("placeholder 200 " + key.placeholder() + " key="
                        + key.placeholder() + "\n");
                assertThat(api.heads).hasSize(1);
                assertThat(api.heads.get(0)).contains("x-api-key: " + secret).doesNotContain(key.placeholder());
                ExecResult env = s.shell().run("env; cat /proc/self/environ");
                assertThat(env.stdout()).contains(key.placeholder()).doesNotContain(secret);
            }
        } finally {
            try (var files = Files.list(dir)) {
                for (Path p : files.toList()) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(dir);
        }
    }
}
