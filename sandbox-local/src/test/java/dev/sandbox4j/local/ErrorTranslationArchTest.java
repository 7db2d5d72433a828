package dev.sandbox4j.local;

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
 * <p>Local: {@code LocalErrors} only.
 */
class ErrorTranslationArchTest {
    /** Top-level classes (with their nested and anonymous classes) allowed to create SandboxExceptions. */
    private static final Set<String> ALLOWED = Set.of("LocalErrors");

    @Test
    void onlyTheErrorTranslatorConstructsSandboxException() {
        JavaClasses classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.sandbox4j.local");
        DescribedPredicate<JavaCall<?>> onSandboxException = target(owner(assignableTo(SandboxException.class)));
        noClasses().that(DescribedPredicate.not(allowed()))
                .should().callConstructorWhere(onSandboxException)
                .orShould().callMethodWhere(onSandboxException.and(target(nameMatching("permanent|temporary"))))
                .because("LocalErrors is the local backend's one place for errors")
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
