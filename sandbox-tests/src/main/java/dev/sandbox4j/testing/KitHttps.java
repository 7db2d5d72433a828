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

/** A one-name HTTPS server on loopback that echoes {@code x-api-key} in a header and the body. */
final class KitHttps implements AutoCloseable {
    final List<String> heads = new CopyOnWriteArrayList<>();
    private final SSLServerSocket server;
    private final Path cert;

    KitHttps(Path dir, String name) throws Exception {
        Path ks = dir.resolve(name + ".p12");
        cert = dir.resolve(name + ".pem");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(keytool, "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
                "CN=" + name, "-ext", "SAN=dns:" + name, "-validity", "2", "-keystore", ks.toString(),
                "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit");
        run(keytool, "-exportcert", "-rfc", "-alias", name, "-keystore", ks.toString(), "-storepass", "changeit",
                "-file", cert.toString());
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(ks)) {
            store.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, "changeit".toCharArray());
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        server = (SSLServerSocket) ctx.getServerSocketFactory().createServerSocket(0, 50,
                InetAddress.getByName("127.0.0.1"));
        Thread t = new Thread(this::serve, "kit-https-" + name);
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.getLocalPort();
    }

    SSLContext clientTls() throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(cert)) {
            trust.setCertificateEntry("kit", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(null, tmf.getTrustManagers(), null);
        return c;
    }

    private void serve() {
        while (!server.isClosed()) {
            try (Socket s = server.accept()) {
                s.setSoTimeout(10_000);
                String head = readHead(s.getInputStream());
                heads.add(head);
                String key = "";
                for (String line : head.split("\r\n")) {
                    if (line.toLowerCase().startsWith("x-api-key:")) {
                        key = line.substring(10).trim();
                    }
                }
                byte[] body = ("key=" + key).getBytes(StandardCharsets.US_ASCII);
                OutputStream out = s.getOutputStream();
                out.write(("HTTP/1.1 200 OK\r\nX-Echo: " + key + "\r\nContent-Length: " + body.length
                        + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
            } catch (IOException e) {
                if (server.isClosed()) {
                    return;
                }
            }
        }
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (b.size() < 65536 && !b.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int c = in.read();
            if (c < 0) {
                break;
            }
            b.write(c);
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("keytool failed: " + out);
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
