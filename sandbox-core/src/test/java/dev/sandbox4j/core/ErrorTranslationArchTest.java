package dev.sandbox4j.core;

import static com.tngtech.archunit.core.domain.JavaCall.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.sandbox4j.SandboxException;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 19: one place per backend creates {@link SandboxException}s, so the kinds and messages a backend produces
 * can be reviewed in one file and no class invents its own.
 *
 * <p>Core is not a backend but the contract written once: argument and path checks, edits, grep, the no-follow
 * workspace and the agent client raise the errors the contract defines, for every backend. The list is a ratchet:
 * these eight classes today, no new class may start constructing SandboxException without being added here.
 */
class ErrorTranslationArchTest {
    /** Top-level classes (with their nested and anonymous classes) allowed to create SandboxExceptions. */
    private static final Set<String> ALLOWED = Set.of("Arguments", "WorkspacePaths", "TextEdits", "GrepScan",
            "NioWorkspace", "AgentShell", "AgentCommand", "AgentCodeContexts");

    @Test
    void onlyTheErrorTranslatorConstructsSandboxException() {
        JavaClasses classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.sandbox4j.core");
        DescribedPredicate<JavaCall<?>> onSandboxException = target(owner(assignableTo(SandboxException.class)));
        noClasses().that(DescribedPredicate.not(allowed()))
                .should().callConstructorWhere(onSandboxException)
                .orShould().callMethodWhere(onSandboxException.and(target(nameMatching("permanent|temporary"))))
                .because("sandbox-core is not a backend: these classes implement the contract once for every "
                        + "backend and raise its errors where the contract defines them; the list is a ratchet, "
                        + "no other class may start")
                .check(classes);
    }

    private static DescribedPredicate<JavaClass> allowed() {
        return DescribedPredicate.describe("in " + ALLOWED, c -> {
            String name = c.getName();
            int nested = name.indexOf('$');
            String top = nested < 0 ? name : name.substring(0, nested);
            return ALLOWED.contains(top.substring(top.lastIndexOf('.') + 1));
        });
    }
}
