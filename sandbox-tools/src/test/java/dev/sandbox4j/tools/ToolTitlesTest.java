package dev.sandbox4j.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every tool of every profile has its own title (MCP shows it to users). */
class ToolTitlesTest {
    @ParameterizedTest
    @EnumSource(ToolProfile.class)
    void everyToolOfTheProfile_hasAShortTitleFromTheTable(ToolProfile profile) {
        List<ToolSpec> specs = SandboxTools.allSpecs(profile);
        assertThat(specs).isNotEmpty();
        for (ToolSpec spec : specs) {
            assertThat(Titles.known(spec.name())).as(profile + " " + spec.name() + " has a title in the table")
                    .isTrue();
            assertThat(spec.title()).as(spec.name()).isNotBlank().hasSizeLessThanOrEqualTo(30)
                    .doesNotContain("_").isNotEqualTo(spec.name());
            assertThat(Character.isUpperCase(spec.title().charAt(0))).as(spec.title()).isTrue();
        }
    }

    @Test
    void title_ofAnotherName_isTheNameInWords() {
        ToolSpec own = new ToolSpec("create_sandbox", "d", List.of(), Capability.READ_FILES,
                new ToolSpec.Hints(false, false, false), Map.of());
        assertThat(own.title()).isEqualTo("Create sandbox");
        assertThat(SandboxTools.allSpecs().get(0).title()).isEqualTo("Run shell command");
    }
}
