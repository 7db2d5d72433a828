package dev.sandbox4j.tools;

import static dev.sandbox4j.tools.Profiles.fields;
import static dev.sandbox4j.tools.Profiles.req;
import static dev.sandbox4j.tools.ToolParam.Type.STRING;

import dev.sandbox4j.ErrorKind;
import dev.sandbox4j.FileInfo;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.SandboxException;
import dev.sandbox4j.tools.Profiles.Tool;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Spacebot's {@code read_skill}: an installed skill's {@code SKILL.md}, its frontmatter stripped and
 * {@code {baseDir}} resolved to the skill's directory in the sandbox, as Spacebot loads skills. Skills are the
 * subdirectories of {@link ToolConfig#skillsDirectory()} holding a {@code SKILL.md}, found by directory name or by
 * the frontmatter's {@code name}, without case. They are read through the file API, so a skills directory mounted
 * read-only into the workspace ({@link dev.sandbox4j.Mount#readOnly}) and one copied in work alike.
 */
final class SkillTool {
    static final String SKILL_FILE = "SKILL.md";
    /** Skills whose frontmatter is read when no directory has the name asked. */
    static final int MAX_SKILLS = 256;
    /** Bytes of a SKILL.md read to find its frontmatter name. */
    private static final int HEAD_BYTES = 4096;

    private SkillTool() {
    }

    static void add(ToolConfig c, List<Tool> out) {
        out.add(new Tool(new ToolSpec("read_skill", "Read the full content of an installed skill. Useful for"
                + " accessing skill instructions, examples, and bundled resources (under base_path).",
                List.of(req("name", STRING, "Name of the skill to read")), Capability.READ_FILES,
                new ToolSpec.Hints(false, true, false), fields("content", "string", "base_path", "string")),
                SkillTool::readSkill));
    }

    private static ToolResult readSkill(SandboxTools t, Args a, ToolProgress p) {
        String name = a.text("name").strip();
        if (name.length() > 128 || name.contains("/") || name.contains("\\") || name.indexOf('\0') >= 0
                || name.equals(".") || name.equals("..")) {
            throw new Args.ArgException("argument 'name' of read_skill must be a skill's name, not a path");
        }
        FileSystem fs = t.fs();
        String root = t.config().skillsDirectory();
        String dir = find(fs, root, name);
        String file = dir + "/" + SKILL_FILE;
        FileInfo info = fs.stat(file);
        if (info.size() > t.config().maxReadBytes()) {
            throw new SandboxException(ErrorKind.TOO_LARGE, file + " is " + info.size() + " bytes, more than "
                    + t.config().maxReadBytes() + " to read at once");
        }
        String basePath = fs.stat(dir).path();
        basePath = basePath.startsWith("/") ? basePath : "/workspace/" + basePath;
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("content", body(fs.readText(file), file).replace("{baseDir}", basePath));
        f.put("base_path", basePath);
        return ToolResult.ok(f);
    }

    /** The skill's directory: by directory name, else by frontmatter name; NOT_FOUND lists what is installed. */
    private static String find(FileSystem fs, String root, String name) {
        if (!fs.exists(root)) {
            throw new SandboxException(ErrorKind.NOT_FOUND, "no skills are installed: " + root + " does not exist");
        }
        List<String> dirs = new ArrayList<>();
        for (FileInfo e : fs.list(root)) {
            if (e.isDirectory() && fs.exists(e.path() + "/" + SKILL_FILE)) {
                if (e.name().equalsIgnoreCase(name)) {
                    return e.path();
                }
                dirs.add(e.path());
            }
        }
        List<String> names = new ArrayList<>();
        for (String d : dirs.subList(0, Math.min(dirs.size(), MAX_SKILLS))) {
            byte[] head = fs.readBytes(d + "/" + SKILL_FILE, 0, HEAD_BYTES);
            String declared = frontmatterName(new String(head, StandardCharsets.UTF_8));
            String shown = declared != null ? declared : d.substring(d.lastIndexOf('/') + 1);
            if (shown.equalsIgnoreCase(name)) {
                return d;
            }
            names.add(shown);
        }
        names.sort(String.CASE_INSENSITIVE_ORDER);
        throw new SandboxException(ErrorKind.NOT_FOUND, "no skill named '" + name + "'; installed: "
                + (names.isEmpty() ? "none" : String.join(", ", names.subList(0, Math.min(names.size(), 50)))));
    }

    /** The body after a {@code ---} frontmatter block (the whole text when there is none). */
    static String body(String text, String file) {
        String trimmed = text.stripLeading();
        if (!trimmed.startsWith("---")) {
            return text;
        }
        int end = trimmed.indexOf("\n---", 3);
        if (end < 0) {
            throw new SandboxException(ErrorKind.INVALID_ARGUMENT, file + " has a frontmatter block that is never"
                    + " closed (no line ---)");
        }
        String rest = trimmed.substring(end + 4);
        int nl = rest.indexOf('\n');
        rest = nl < 0 ? "" : rest.substring(nl + 1);
        return rest.replaceFirst("^\n+", "");
    }

    /** The frontmatter's {@code name:}, unquoted, or null. */
    static String frontmatterName(String head) {
        String trimmed = head.stripLeading();
        if (!trimmed.startsWith("---")) {
            return null;
        }
        int end = trimmed.indexOf("\n---", 3);
        String block = end < 0 ? trimmed.substring(3) : trimmed.substring(3, end);
        for (String line : block.split("\n")) {
            String l = line.strip();
            if (l.toLowerCase(Locale.ROOT).startsWith("name:")) {
                String v = l.substring(5).strip();
                if (v.length() >= 2 && (v.startsWith("\"") && v.endsWith("\"") || v.startsWith("'")
                        && v.endsWith("'"))) {
                    v = v.substring(1, v.length() - 1);
                }
                return v.isEmpty() ? null : v;
            }
        }
        return null;
    }
}
