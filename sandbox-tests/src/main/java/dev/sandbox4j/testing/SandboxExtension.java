package dev.sandbox4j.testing;

import dev.sandbox4j.Feature;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.SandboxSpec;
import java.lang.reflect.AnnotatedElement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/** Opens the sandbox a kit test asks for, closes it afterwards, gates on features and checks for leaks. */
final class SandboxExtension implements ParameterResolver, AfterEachCallback, ExecutionCondition {
    /** The spec of the sandbox a kit test gets as a parameter. */
    static final SandboxSpec TEST_SPEC = SandboxSpec.builder().commandTimeout(Duration.ofSeconds(30)).build();

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(SandboxExtension.class);

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        Optional<Object> instance = context.getTestInstance();
        if (instance.isEmpty() || !(instance.get() instanceof ConformanceSupport)) {
            return ConditionEvaluationResult.enabled("no fixture yet");
        }
        Set<Feature> features = ((ConformanceSupport) instance.get()).fixture().features();
        List<String> missing = new ArrayList<>();
        for (AnnotatedElement element : elements(context)) {
            Requires requires = element.getAnnotation(Requires.class);
            if (requires == null) {
                continue;
            }
            for (Feature f : requires.value()) {
                if (!features.contains(f)) {
                    missing.add("needs " + f);
                }
            }
            for (Feature f : requires.absent()) {
                if (features.contains(f)) {
                    missing.add("runs only without " + f);
                }
            }
        }
        return missing.isEmpty()
                ? ConditionEvaluationResult.enabled("backend declares what the test needs")
                : ConditionEvaluationResult.disabled("backend features: " + String.join(", ", missing));
    }

    private static List<AnnotatedElement> elements(ExtensionContext context) {
        List<AnnotatedElement> out = new ArrayList<>();
        context.getTestMethod().ifPresent(m -> {
            out.add(m);
            out.add(m.getDeclaringClass());
        });
        context.getTestClass().ifPresent(out::add);
        return out;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == Sandbox.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        SandboxFixture fixture = fixture(context);
        Sandbox sandbox = fixture.open(TEST_SPEC);
        context.getStore(NS).put("sandbox", sandbox);
        return sandbox;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        Sandbox sandbox = context.getStore(NS).remove("sandbox", Sandbox.class);
        if (sandbox != null) {
            sandbox.close();
        }
        if (context.getTestInstance().orElse(null) instanceof ConformanceSupport) {
            LeakCheck.assertNoLeaks(fixture(context));
        }
    }

    private static SandboxFixture fixture(ExtensionContext context) {
        Object instance = context.getRequiredTestInstance();
        if (!(instance instanceof ConformanceSupport)) {
            throw new IllegalStateException(instance.getClass() + " must implement " + ConformanceSupport.class);
        }
        return ((ConformanceSupport) instance).fixture();
    }

    static String describe(Feature... features) {
        return Arrays.stream(features).map(Enum::name).collect(Collectors.joining(", "));
    }
}
