package dev.sandbox4j.testing;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The kit is published for third-party backends, which have sandbox-api and nothing of sandbox4j's internals: no kit
 * class may use sandbox-core (its helpers are internal, and in a user's class path only as sandbox-memory's relocated
 * copy) or a backend's package.
 */
class KitDependencyTest {
    @Test
    void kitClasses_dependOnTheApiNotOnInternals() {
        JavaClasses kit = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.sandbox4j.testing");
        noClasses().should().dependOnClassesThat()
                .resideInAnyPackage("dev.sandbox4j.core..", "dev.sandbox4j.local..", "dev.sandbox4j.docker..")
                .because("a third-party backend runs the kit with sandbox-api and the kit's own dependencies only")
                .check(kit);
    }
}
