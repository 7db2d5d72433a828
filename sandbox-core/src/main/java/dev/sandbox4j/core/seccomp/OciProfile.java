package dev.sandbox4j.core.seccomp;

import dev.sandbox4j.core.seccomp.ArgRule.Pattern;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Writes a {@link Policy} as a Docker/Podman seccomp profile (the JSON {@code docker run --security-opt seccomp=}
 * takes; runc and crun hand it to libseccomp). Default {@code ENOSYS} ({@code defaultErrnoRet}), and every syscall
 * the architecture's table knows and the policy does not list is named with {@code ENOSYS} too (Docker 20.10 ignores
 * {@code defaultErrnoRet} and would answer EPERM, which libraries do not fall back on).
 *
 * <p>One profile per architecture, naming only that one (the engine's): libseccomp then answers i386, x32 and a
 * foreign architecture's calls with its bad-architecture action (kill), as the jail's BPF does, and runc compiles one
 * filter instead of two at every container start (measured with libseccomp 2.5.4: 14.5 ms of CPU for both
 * architectures, 6.7 ms for one; docs/security.md, "What it costs"). Each argument rule becomes disjoint
 * {@code SCMP_CMP_MASKED_EQ} rules: its patterns with the rule's action, and a cover of the rest with the otherwise
 * action, so no meaning depends on libseccomp's precedence between overlapping rules (an unconditional rule beside
 * conditional ones of another action wins outright in 2.5.4, measured).
 */
final class OciProfile {
    private OciProfile() {
    }

    static String json(Policy policy, SyscallTable table) {
        StringBuilder j = new StringBuilder(16384);
        j.append("{\n \"comment\": \"sandbox4j seccomp allow-list, generated from dev.sandbox4j.core.seccomp.Policy");
        j.append(policy.optIns.isEmpty() ? "" : " with " + String.join(", ", policy.optIns));
        j.append(" (docs/security.md)\",\n \"defaultAction\": \"SCMP_ACT_ERRNO\",\n \"defaultErrnoRet\": ")
                .append(Policy.ENOSYS).append(",\n");
        j.append(" \"architectures\": [\"").append(table == SyscallTable.X86_64 ? "SCMP_ARCH_X86_64" : "SCMP_ARCH_AARCH64")
                .append("\"],\n \"syscalls\": [");
        Map<Integer, TreeSet<String>> byAction = new LinkedHashMap<>();
        policy.actions.forEach((name, action) -> {
            if (Policy.argRule(name) == null) {
                byAction.computeIfAbsent(action, k -> new TreeSet<>()).add(name);
            }
        });
        // every other name the tables know, ENOSYS by name: engines that drop defaultErrnoRet (Docker 20.10) answer
        // the default with EPERM, and only numbers past libseccomp's table with runc's ENOSYS stub
        TreeSet<String> unlisted = new TreeSet<>();
        table.numbers().keySet().stream().filter(n -> !policy.actions.containsKey(n) && Policy.argRule(n) == null)
                .forEach(unlisted::add);
        byAction.computeIfAbsent(Policy.DEFAULT, k -> new TreeSet<>()).addAll(unlisted);
        List<String> entries = new ArrayList<>();
        byAction.forEach((action, names) -> entries.add(entry(List.copyOf(names), action, null)));
        for (ArgRule rule : Policy.ARG_RULES) {
            for (Pattern p : rule.when()) {
                entries.add(entry(List.of(rule.syscall()), rule.action(), p));
            }
            for (Pattern p : rule.otherwisePatterns()) {
                entries.add(entry(List.of(rule.syscall()), rule.otherwise(), p));
            }
        }
        j.append(String.join(",", entries)).append("\n ]\n}\n");
        return j.toString();
    }

    private static String entry(List<String> names, int action, Pattern p) {
        StringBuilder e = new StringBuilder("\n  {\"names\": [");
        for (int i = 0; i < names.size(); i++) {
            e.append(i == 0 ? "" : ", ").append('"').append(names.get(i)).append('"');
        }
        e.append("], ");
        if (action == Policy.ALLOW) {
            e.append("\"action\": \"SCMP_ACT_ALLOW\"");
        } else if ((action & 0xffff0000) == Policy.errno(0)) {
            e.append("\"action\": \"SCMP_ACT_ERRNO\", \"errnoRet\": ").append(action & 0xffff);
        } else {
            throw new IllegalStateException("no profile action for 0x" + Integer.toHexString(action));
        }
        if (p != null) {
            e.append(", \"args\": [{\"index\": ").append(p.arg()).append(", \"value\": ").append(p.mask())
                    .append(", \"valueTwo\": ").append(p.value()).append(", \"op\": \"SCMP_CMP_MASKED_EQ\"}]");
        }
        return e.append('}').toString();
    }
}
