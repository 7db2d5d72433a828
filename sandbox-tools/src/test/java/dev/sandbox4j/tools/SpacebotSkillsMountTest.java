package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.ExecResult;
import dev.sandbox4j.Mount;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import dev.sandbox4j.Sandboxes;
import dev.sandbox4j.spi.SandboxProvider;
import dev.sandbox4j.testing.Required;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * read_skill over a skills directory mounted read-only into the workspace (the local jail and Docker), and skills
 * copied into the workspace instead (for a backend without read-only mounts: they work alike);
 * Spacebot's identity files through the tools on real backends, and the documented limit (the shell can change them).
 */
class SpacebotSkillsMountTest {
    private static Path skills;

    @BeforeAll
    static void skillsOnTheHost() throws IOException {
        skills = Files.createTempDirectory("sandbox4j-skills-");
        Files.createDirectories(skills.resolve("weather/scripts"));
        Files.writeString(skills.resolve("weather/SKILL.md"), SpacebotToolsTest.WEATHER);
        Files.writeString(skills.resolve("weather/scripts/wttr.sh"), "echo sunny\n");
        try (Stream<Path> s = Files.walk(skills)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x"
                        : "rw-r--r--"));
            }
        }
    }

    @AfterAll
    static void cleanUp() throws IOException {
        try (Stream<Path> s = Files.walk(skills)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static Sandbox open(String backend, SandboxSpec spec) {
        Optional<String> why = Sandboxes.providers().stream().filter(p -> p.name().equals(backend)).findFirst()
                .map(SandboxProvider::unavailableReason).orElse(Optional.of("not on the class path"));
        Required.orSkip(backend, why);
        return Sandboxes.open(backend, spec);
    }

    @Test
    void local_readsAMountedSkill_whichNeitherToolsNorTheShellCanChange() {
        SandboxSpec spec = SandboxSpec.builder().mount(Mount.readOnly(skills, "/workspace/skills"))
                .file("SOUL.md", "I am\n").build();
        try (Sandbox s = open("local", spec)) {
            SandboxTools t = new SandboxTools(s, ToolConfig.builder().profile("spacebot").build());
            ToolResult r = t.call("read_skill", Map.of("name", "weather"));
            assertThat(r.fields()).containsEntry("base_path", "/workspace/skills/weather").containsEntry("content",
                    "# Weather\nRun /workspace/skills/weather/scripts/wttr.sh CITY.\n");
            ToolResult run = t.call("shell", Map.of("command", "sh /workspace/skills/weather/scripts/wttr.sh"));
            assertThat(run.get("stdout")).as("the skill's bundled script runs from its base path").isEqualTo(
                    "sunny\n");
            assertThat(t.call("file", Map.of("operation", "write", "path", "skills/weather/SKILL.md", "content",
                    "x")).errorType()).isEqualTo("permission_denied");
            ExecResult touch = s.shell().run("echo x > skills/weather/SKILL.md");
            assertThat(touch.exitCode()).isNotZero();
            assertThat(touch.stderr()).containsIgnoringCase("read-only");
            identityFiles(s, t);
        }
    }

    @Test
    void docker_mountsTheSkillsReadOnly_andCopiedIntoTheWorkspaceTheyWorkAlike() throws IOException {
        SandboxSpec mounted = SandboxSpec.builder().mount(Mount.readOnly(skills, "/workspace/skills"))
                .file("SOUL.md", "I am\n").build();
        try (Sandbox s = open("docker", mounted)) {
            SandboxTools t = new SandboxTools(s, ToolConfig.builder().profile("spacebot").build());
            assertThat(t.call("read_skill", Map.of("name", "weather")).get("base_path"))
                    .isEqualTo("/workspace/skills/weather");
            assertThat(t.call("file", Map.of("operation", "write", "path", "skills/weather/SKILL.md", "content",
                    "x")).errorType()).isEqualTo("permission_denied");
            assertThat(s.shell().run("echo x > skills/weather/SKILL.md").stderr()).containsIgnoringCase("read-only");
        }
        SandboxSpec copied = SandboxSpec.builder().file("SOUL.md", "I am\n")
                .file("skills/weather/SKILL.md", Files.readString(skills.resolve("weather/SKILL.md"))).build();
        try (Sandbox s = open("docker", copied)) {
            SandboxTools t = new SandboxTools(s, ToolConfig.builder().profile("spacebot").build());
            assertThat(t.call("read_skill", Map.of("name", "Weather")).get("base_path"))
                    .isEqualTo("/workspace/skills/weather");
            identityFiles(s, t);
        }
    }

    /** The tools refuse the identity file and links to it; the shell is not bound by the rule. */
    private static void identityFiles(Sandbox s, SandboxTools t) {
        assertThat(s.shell().run("ln -s SOUL.md soul-link && mkdir d").exitCode()).isZero();
        for (String path : Map.of("a", "SOUL.md", "b", "./Soul.md", "c", "soul-link", "d", "d/../SOUL.md")
                .values()) {
            ToolResult w = t.call("file", Map.of("operation", "write", "path", path, "content", "x"));
            assertThat(w.errorType()).as(path).isEqualTo("permission_denied");
        }
        assertThat(t.call("file", Map.of("operation", "read", "path", "soul-link")).errorType())
                .as("Spacebot refuses links, reads included").isEqualTo("permission_denied");
        assertThat(t.call("file", Map.of("operation", "read", "path", "SOUL.md")).get("content"))
                .isEqualTo("I am\n");
        SpacebotToolsTest.shellStillWrites(s);
    }
}
