package dev.sandbox4j.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.sun.net.httpserver.HttpServer;
import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.Feature;
import dev.sandbox4j.NetworkPolicy;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.WorkspaceSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 35's git source ({@link WorkspaceSource#git}), gated by {@link Feature#WORKSPACE_GIT}: a clone made by git in
 * the sandbox, from a host path (read-only mount) or a URL (through the network policy), shallow by default, at a
 * branch or tag; the source repository's hooks never run, on the host or in the sandbox. The test repository is made
 * on the host with the host's git (the kit's own content).
 */
public interface WorkspaceGitContract extends ConformanceSupport {
    /** A repository: two commits on main (a hook that would mark the host if it ran), a branch, a tag. */
    private static Path repo() {
        try {
            Path d = Files.createTempDirectory("sandbox4j-kit-git-");
            String marker = d.resolveSibling(d.getFileName() + "-PWNED").toString();
            git(d, "init -q -b main . && git config user.email kit@test && git config user.name kit"
                    + " && echo one > README.md && git add . && git commit -qm one"
                    + " && echo two >> README.md && git commit -qam two && git tag v1"
                    + " && git checkout -qb feature && echo f > feature.txt && git add . && git commit -qm f"
                    + " && git checkout -q main"
                    + " && printf '#!/bin/sh\\ntouch " + marker + "\\n' > .git/hooks/post-checkout"
                    + " && chmod 755 .git/hooks/post-checkout && chmod -R a+rX .");
            return d;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void git(Path dir, String script) throws IOException {
        Process p = new ProcessBuilder("sh", "-c", "git " + script).directory(dir.toFile()).redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            assertThat(p.waitFor()).as("git " + script + ": " + out).isZero();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static void delete(Path d) {
        try (Stream<Path> s = Files.walk(d)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a leftover in the temp directory
        }
    }

    private static ErrorKind kindOf(Runnable call) {
        SandboxException e = catchThrowableOfType(call::run, SandboxException.class);
        return e == null ? null : e.kind();
    }

    @Test
    @Requires({Feature.WORKSPACE_GIT, Feature.SHELL})
    default void git_hostPath_shallowByDefault_atABranch_hooksNeverRun_specFilesWin() {
        Path repo = repo();
        Path marker = repo.resolveSibling(repo.getFileName() + "-PWNED");
        try {
            try (Sandbox s = fixture().open(SandboxSpec.builder().workspace(WorkspaceSource.git(repo.toString()))
                    .file("extra.txt", "from the spec\n").build())) {
                assertThat(s.files().readText("README.md")).isEqualTo("one\ntwo\n");
                assertThat(s.files().readText("extra.txt")).isEqualTo("from the spec\n");
                assertThat(s.shell().run("git rev-list --count HEAD").stdout().trim()).isEqualTo("1");
                assertThat(s.info().details().get("workspace source")).startsWith("git:" + repo)
                        .contains("cloned in the sandbox", "shallow", "HEAD ");
                assertThat(s.files().exists("feature.txt")).isFalse();
            }
            try (Sandbox s = fixture().open(SandboxSpec.builder().workspace(WorkspaceSource.git(repo.toString(),
                    "feature").withFullHistory()).build())) {
                assertThat(s.files().readText("feature.txt")).isEqualTo("f\n");
                assertThat(s.shell().run("git rev-list --count HEAD").stdout().trim()).isEqualTo("3");
            }
            try (Sandbox s = fixture().open(SandboxSpec.builder().workspace(WorkspaceSource.git(repo.toString(),
                    "v1")).build())) {
                assertThat(s.files().readText("README.md")).isEqualTo("one\ntwo\n");
            }
            assertThat(marker).as("the source repository's hook never ran").doesNotExist();
        } finally {
            delete(repo);
        }
    }

    @Test
    @Requires({Feature.WORKSPACE_GIT, Feature.SHELL})
    default void git_missingRefOrRepository_refusedTyped_nothingLeftOpen() {
        Path repo = repo();
        try {
            assertThat(kindOf(() -> fixture().open(SandboxSpec.builder().workspace(WorkspaceSource.git(
                    repo.toString(), "no-such-branch")).build()).close())).isEqualTo(ErrorKind.NOT_FOUND);
            assertThat(kindOf(() -> fixture().open(SandboxSpec.builder().workspace(WorkspaceSource.git(
                    repo.resolve("missing").toString())).build()).close())).isEqualTo(ErrorKind.NOT_FOUND);
        } finally {
            delete(repo);
        }
        for (String bad : new String[] {"ssh://host/x", "file:///etc", "--upload-pack=sh", "relative/path",
            "https://user:token@host/x.git", "https://host/x y"}) {
            assertThatThrownBy(() -> WorkspaceSource.git(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> WorkspaceSource.git("/srv/x", "-b")).isInstanceOf(IllegalArgumentException.class);
    }

    /** Over HTTP through the allow-list: git's dumb protocol, served from a bare copy (full history: no shallow). */
    @Test
    @Requires({Feature.WORKSPACE_GIT, Feature.SHELL})
    default void git_url_clonedThroughTheNetworkPolicy_refusedWithoutIt() throws Exception {
        Path repo = repo();
        Path bare = Files.createTempDirectory("sandbox4j-kit-bare-");
        AtomicInteger requests = new AtomicInteger();
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0), 0);
        try {
            git(bare, "clone -q --bare " + repo + " repo.git && cd repo.git && git update-server-info");
            Path root = bare.resolve("repo.git");
            http.createContext("/", ex -> {
                requests.incrementAndGet();
                Path f = root.resolve(ex.getRequestURI().getPath().replaceFirst("^/repo\\.git/?", "")).normalize();
                byte[] body = f.startsWith(root) && Files.isRegularFile(f) ? Files.readAllBytes(f) : null;
                ex.sendResponseHeaders(body == null ? 404 : 200, body == null ? -1 : body.length);
                if (body != null) {
                    ex.getResponseBody().write(body);
                }
                ex.close();
            });
            http.start();
            int port = http.getAddress().getPort();
            InetSocketAddress server = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port);
            String url = "http://git.test:" + port + "/repo.git";
            InetAddress nowhere = InetAddress.getByName("127.0.0.2");
            try (AutoCloseable egress = fixture().egressForTests(name -> "git.test".equals(name)
                    ? server.getAddress() : nowhere, server)) {
                try (Sandbox s = fixture().open(SandboxSpec.builder().network(NetworkPolicy.allowDomains(
                        "git.test:" + port)).workspace(WorkspaceSource.git(url).withFullHistory()).build())) {
                    assertThat(s.files().readText("README.md")).isEqualTo("one\ntwo\n");
                    assertThat(requests.get()).isPositive();
                }
                int before = requests.get();
                assertThat(kindOf(() -> fixture().open(SandboxSpec.builder().workspace(WorkspaceSource.git(url)
                        .withFullHistory()).build()).close())).as("no network: the clone fails, typed")
                        .isIn(ErrorKind.IO_ERROR, ErrorKind.NOT_FOUND);
                assertThat(requests.get()).as("no request left the sandbox").isEqualTo(before);
            }
        } finally {
            http.stop(0);
            delete(bare);
            delete(repo);
        }
    }

    @Test
    @Requires(absent = Feature.WORKSPACE_GIT)
    default void git_withoutFeature_refusedAtOpenUnsupported() {
        assertThat(kindOf(() -> fixture().open(SandboxSpec.builder().workspace(WorkspaceSource.git(
                "https://example.invalid/x.git")).build()).close())).isEqualTo(ErrorKind.UNSUPPORTED);
    }
}
