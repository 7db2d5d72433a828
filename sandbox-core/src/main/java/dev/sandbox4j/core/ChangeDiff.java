package dev.sandbox4j.core;

import dev.sandbox4j.Workspace.Change;
import java.io.IOException;

/** One change as git writes it in a unified diff: headers, modes, text hunks; binary files named only. */
final class ChangeDiff {
    private ChangeDiff() {
    }

    static void append(StringBuilder out, Change c, ChangeSet.Entry lower, ChangeSet.Entry upper)
            throws IOException {
        ChangeSet.Entry any = upper != null ? upper : lower;
        if (any.type() == 'd' || any.type() == 'o') {
            return; // git tracks files and links; directories follow from them
        }
        String p = c.path();
        out.append("diff --git a/").append(p).append(" b/").append(p).append('\n');
        String oldMode = lower == null ? null : gitMode(lower);
        String newMode = upper == null ? null : gitMode(upper);
        if (lower == null) {
            out.append("new file mode ").append(newMode).append('\n');
        } else if (upper == null) {
            out.append("deleted file mode ").append(oldMode).append('\n');
        } else if (!oldMode.equals(newMode)) {
            out.append("old mode ").append(oldMode).append('\n').append("new mode ").append(newMode).append('\n');
        }
        String before = lower == null || lower.type() == 'd' ? "" : ChangeSet.text(lower);
        String after = upper == null || upper.type() == 'd' ? "" : ChangeSet.text(upper);
        String a = lower == null ? "/dev/null" : "a/" + p;
        String b = upper == null ? "/dev/null" : "b/" + p;
        if (before == null || after == null) {
            out.append("Binary files ").append(a).append(" and ").append(b).append(" differ\n");
            return;
        }
        String hunks = TextEdits.unifiedDiff(p, before, after);
        if (hunks.isEmpty()) {
            return;
        }
        int body = hunks.indexOf('\n', hunks.indexOf('\n') + 1) + 1;
        out.append("--- ").append(a).append('\n').append("+++ ").append(b).append('\n').append(hunks, body,
                hunks.length());
    }

    private static String gitMode(ChangeSet.Entry e) {
        if (e.type() == 'l') {
            return "120000";
        }
        return (e.mode() & 0111) != 0 ? "100755" : "100644";
    }
}
