package dev.sandbox4j.tools;

import static dev.sandbox4j.tools.Profiles.fields;
import static dev.sandbox4j.tools.Profiles.req;
import static dev.sandbox4j.tools.Profiles.spec;
import static dev.sandbox4j.tools.ToolParam.Type.STRING;

import dev.sandbox4j.SandboxException;
import dev.sandbox4j.tools.Profiles.Tool;
import java.util.List;
import java.util.Map;

/**
 * The Codex surface ({@link ToolProfile#CODEX}): {@code exec_command}, {@code write_stdin} and {@code apply_patch}
 * with the names, parameters and result texts of openai/codex ({@code codex-rs/tools/src/local_tool.rs},
 * {@code apply_patch_tool.rs}, {@code codex-rs/apply-patch}); docs/tools.md names the commit matched and what
 * differs.
 */
final class CodexProfile {
    private CodexProfile() {
    }

    static final String APPLY_PATCH_DESCRIPTION = "Use the `apply_patch` tool to edit files. The patch is a"
            + " file-oriented diff:\n\n*** Begin Patch\n[ one or more file sections ]\n*** End Patch\n\nEach section"
            + " starts with a header:\n*** Add File: <path> - create a file; every following line is a + line (its"
            + " contents).\n*** Delete File: <path> - remove an existing file. Nothing follows.\n*** Update File:"
            + " <path> - patch an existing file in place, optionally followed by *** Move to: <new path> to rename"
            + " it, then one or more hunks, each introduced by @@ (optionally followed by a line, such as a class or"
            + " function, to find the hunk after).\nWithin a hunk each line starts with ' ' (context), '-' (removed)"
            + " or '+' (added). Show 3 lines of context above and below each change; use @@ lines when that is not"
            + " unique.\n\nGrammar:\nPatch := Begin { FileOp } End\nBegin := \"*** Begin Patch\" NEWLINE\nEnd :="
            + " \"*** End Patch\" NEWLINE\nFileOp := AddFile | DeleteFile | UpdateFile\nAddFile := \"*** Add File: \""
            + " path NEWLINE { \"+\" line NEWLINE }\nDeleteFile := \"*** Delete File: \" path NEWLINE\nUpdateFile :="
            + " \"*** Update File: \" path NEWLINE [ MoveTo ] { Hunk }\nMoveTo := \"*** Move to: \" newPath NEWLINE\n"
            + "Hunk := \"@@\" [ header ] NEWLINE { HunkLine } [ \"*** End of File\" NEWLINE ]\nHunkLine := (\" \" |"
            + " \"-\" | \"+\") text NEWLINE\n\nFile references are relative to the workspace. The patch is applied"
            + " whole or not at all: if any hunk does not apply, no file changes.";

    static void add(ToolConfig c, List<Tool> out) {
        Map<String, String> exec = fields("chunk_id", "string", "wall_time_seconds", "number", "exit_code", "number",
                "session_id", "number", "original_token_count", "number", "output", "string");
        out.add(new Tool(spec("exec_command", "Runs a command in a PTY, returning output or a session ID for"
                + " ongoing interaction.", CodexExec.execParams(),
                exec).withPublishedOutputSchema(CodexExec.outputSchema()), CodexExec::execCommand));
        out.add(new Tool(spec("write_stdin", "Writes characters to an existing unified exec session and returns"
                + " recent output.", CodexExec.writeParams(), exec)
                .withPublishedOutputSchema(CodexExec.outputSchema()), CodexExec::writeStdin));
        out.add(new Tool(spec("apply_patch", APPLY_PATCH_DESCRIPTION,
                List.of(req("input", STRING, "The entire contents of the apply_patch command")),
                fields("content", "string")).withPublishedOutputSchema(FilesystemTools.textOutput()),
                CodexProfile::applyPatch));
    }

    static ToolResult applyPatch(SandboxTools t, Args a, ToolProgress p) {
        String input = a.string("input");
        t.checkWriteSize(input);
        List<V4aPatch.Hunk> hunks;
        try {
            hunks = V4aPatch.parse(input);
        } catch (V4aPatch.ParseException e) {
            return ToolResult.error(dev.sandbox4j.ErrorKind.INVALID_ARGUMENT,
                    "apply_patch verification failed: " + e.getMessage());
        }
        try {
            ApplyPatch.Outcome o = new ApplyPatch(t.fs(), t.config().maxWriteChars()).apply(hunks);
            return ToolResult.ok(Map.of("content", o.summary())).withText(o.summary());
        } catch (ApplyPatch.Failure f) {
            return failed(f);
        } catch (SandboxException e) {
            return ToolResult.error(e.kind(), e.getMessage() + ". Nothing was changed.");
        }
    }

    private static ToolResult failed(ApplyPatch.Failure f) {
        NearMiss.Diagnosis d = f.text == null ? null : NearMiss.diagnose(f.text, f.sought);
        String message = f.getMessage() + (f.kind == dev.sandbox4j.ErrorKind.INVALID_ARGUMENT ? ""
                : "\nNothing was changed.");
        if (d == null) {
            return ToolResult.error(f.kind, message);
        }
        return ToolResult.error(f.kind, f.getMessage() + "\n" + d.sentence().strip(), d.fields());
    }
}
