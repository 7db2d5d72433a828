package dev.sandbox4j.tools;

import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.sandbox4j.SandboxException;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 19: one place per backend creates {@link SandboxException}s, so the kinds and messages a backend produces
 * can be reviewed in one file and no class invents its own. Checked here, where every backend is on the class path.
 *
 * <p>sandbox-core is not a backend but the contract written once: argument and path checks, edits, grep, the
 * no-follow workspace and the agent client raise the errors the contract defines for every backend; its list is a
 * ratchet (no other class may start). Calling {@code SandboxException.permanent/temporary} counts as constructing.
 */
class ErrorTranslationArchTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {
        "dev.sandbox4j.local; LocalErrors",
        "dev.sandbox4j.docker; DockerErrors",
        "dev.sandbox4j.kubernetes; KubeErrors",
        "dev.sandbox4j.memory; MemoryErrors",
        // issue 35 added the workspace sources' contract: host directory checks at open (HostDirs) and the change
        // set (ChangeSet; NoChangeSet for sources without one), the git source's clone in the sandbox (GitSeed);
        // issue 32 the registry of processes found by id (ProcessTable: unknown ids, the running bound, cursors) and
        // the ports opened on the host (AgentPorts: bad ports, the bounds, readiness timeouts); the change set of a
        // workspace downloaded from a sandbox (DownloadedChangeSet: Docker's, moved to core to serve Kubernetes too)
        "dev.sandbox4j.core; Arguments WorkspacePaths TextEdits GrepScan NioWorkspace AgentShell AgentCommand "
                + "AgentCodeContexts WatchHub HostDirs ChangeSet NoChangeSet GitSeed ProcessTable AgentPorts "
                + "DownloadedChangeSet"})
    void onlyTheErrorTranslatorConstructsSandboxException(String pkg, String translators) {
        Set<String> allowed = Set.of(translators.trim().split("\\s+"));
        var classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(pkg);
        DescribedPredicate<JavaCall<?>> onSandboxException = target(owner(assignableTo(SandboxException.class)));
        // sandbox-memory's jar carries core's classes relocated under memory.internal: they are core's, checked above
        noClasses().that().resideOutsideOfPackage(pkg + ".internal..").and(DescribedPredicate.not(topLevelIn(allowed)))
                .should().callConstructorWhere(onSandboxException)
                .orShould().callMethodWhere(onSandboxException.and(target(nameMatching("permanent|temporary"))))
                .because(allowed + " is where " + pkg + " creates its errors")
                .allowEmptyShould(false)
                .check(classes);
    }

    /** Classes whose top-level class (nested and anonymous ones included) is one of {@code names}. */
    private static DescribedPredicate<JavaClass> topLevelIn(Set<String> names) {
        return DescribedPredicate.describe("in " + names, c -> {
            String name = c.getName();
            int nested = name.indexOf('$');
            String top = nested < 0 ? name : name.substring(0, nested);
            return names.contains(top.substring(top.lastIndexOf('.') + 1));
        });
    }
}
