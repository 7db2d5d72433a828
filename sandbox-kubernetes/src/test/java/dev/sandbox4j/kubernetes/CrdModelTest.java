package dev.sandbox4j.kubernetes;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The typed model against agent-sandbox's own CRDs (test fixtures, src/test/resources/crds): each kind's group,
 * version, kind and plural are the CRD's, every field the model has is in the CRD's v1beta1 schema at the same place,
 * and the example objects (the project's aider example, the guide's pool.yaml, a claim and a sandbox with status)
 * survive a round trip through the model unchanged.
 */
class CrdModelTest {
    static final KubernetesSerialization JSON = new KubernetesSerialization();

    static Stream<Arguments> kinds() {
        return Stream.of(Arguments.of(Crd.Sandbox.class, "agents.x-k8s.io_sandboxes"),
                Arguments.of(Crd.SandboxClaim.class, "extensions.agents.x-k8s.io_sandboxclaims"),
                Arguments.of(Crd.SandboxTemplate.class, "extensions.agents.x-k8s.io_sandboxtemplates"),
                Arguments.of(Crd.SandboxWarmPool.class, "extensions.agents.x-k8s.io_sandboxwarmpools"));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> crd(String file) throws IOException {
        try (InputStream in = CrdModelTest.class.getResourceAsStream("/crds/" + file + ".yaml")) {
            return JSON.unmarshal(new String(in.readAllBytes(), StandardCharsets.UTF_8), Map.class);
        }
    }

    @SuppressWarnings("unchecked")
    @ParameterizedTest
    @MethodSource("kinds")
    void theModelIsTheCrdsV1beta1(Class<? extends CustomResource<?, ?>> type, String file) throws IOException {
        Map<String, Object> crd = crd(file);
        Map<String, Object> spec = (Map<String, Object>) crd.get("spec");
        Map<String, Object> names = (Map<String, Object>) spec.get("names");
        assertThat(HasMetadata.getGroup(type)).isEqualTo(spec.get("group"));
        assertThat(HasMetadata.getKind(type)).isEqualTo(names.get("kind"));
        assertThat(HasMetadata.getPlural(type)).isEqualTo(names.get("plural"));
        assertThat(HasMetadata.getVersion(type)).isEqualTo("v1beta1");
        Map<String, Object> schema = null;
        for (Map<String, Object> v : (List<Map<String, Object>>) spec.get("versions")) {
            if ("v1beta1".equals(v.get("name"))) {
                schema = (Map<String, Object>) ((Map<String, Object>) v.get("schema")).get("openAPIV3Schema");
            }
        }
        assertThat(schema).as("the CRD serves v1beta1").isNotNull();
        Map<String, Object> props = (Map<String, Object>) schema.get("properties");
        Type[] args = ((ParameterizedType) type.getGenericSuperclass()).getActualTypeArguments();
        List<String> missing = new ArrayList<>();
        List<String> checked = new ArrayList<>();
        walk((Class<?>) args[0], (Map<String, Object>) props.get("spec"), "spec", missing, checked);
        if (args[1] != Void.class) {
            walk((Class<?>) args[1], (Map<String, Object>) props.get("status"), "status", missing, checked);
        }
        assertThat(missing).as("model fields that the CRD does not have").isEmpty();
        String key = switch (HasMetadata.getKind(type)) {
            case "Sandbox" -> "status.podIPs";
            case "SandboxClaim" -> "status.sandbox.podIPs";
            case "SandboxTemplate" -> "spec.networkPolicy.egress";
            default -> "spec.sandboxTemplateRef.name";
        };
        assertThat(checked).as("fields checked").hasSizeGreaterThan(3).contains(key);
    }

    /** Each record component of {@code type} is a property of {@code schema}; nested records recursively. */
    @SuppressWarnings("unchecked")
    private static void walk(Class<?> type, Map<String, Object> schema, String path, List<String> missing,
                             List<String> checked) {
        if (!type.isRecord() || !type.getName().startsWith("dev.sandbox4j")) {
            return; // fabric8's own types (PodSpec, Condition) are Kubernetes' schema
        }
        Map<String, Object> props = schema == null ? Map.of() : (Map<String, Object>) schema.getOrDefault(
                "properties", Map.of());
        for (RecordComponent c : type.getRecordComponents()) {
            Map<String, Object> p = (Map<String, Object>) props.get(c.getName());
            if (p == null) {
                missing.add(path + "." + c.getName());
                continue;
            }
            checked.add(path + "." + c.getName());
            Class<?> t = c.getType();
            if (List.class.isAssignableFrom(t)) {
                Type e = ((ParameterizedType) c.getGenericType()).getActualTypeArguments()[0];
                walk((Class<?>) e, (Map<String, Object>) p.get("items"), path + "." + c.getName() + "[]", missing,
                        checked);
            } else {
                walk(t, p, path + "." + c.getName(), missing, checked);
            }
        }
    }

    static Stream<Arguments> examples() throws IOException {
        List<Arguments> all = new ArrayList<>();
        for (String f : List.of("aider-template", "aider-warmpool", "aider-claim", "claim-with-status",
                "sandbox-with-status")) {
            try (InputStream in = CrdModelTest.class.getResourceAsStream("/examples/" + f + ".yaml")) {
                all.add(Arguments.of(f, new String(in.readAllBytes(), StandardCharsets.UTF_8)));
            }
        }
        String pool = Files.readString(ControllerSimulator.POOL_YAML);
        for (String doc : pool.split("\n---\n")) {
            all.add(Arguments.of("pool.yaml " + doc.lines().filter(l -> l.startsWith("kind:")).findFirst()
                    .orElseThrow(), doc));
        }
        return all.stream();
    }

    @SuppressWarnings("unchecked")
    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void exampleObjectsRoundTripUnchanged(String name, String yaml) {
        Map<String, Object> original = JSON.unmarshal(yaml, Map.class);
        Class<? extends KubernetesResource> type = switch ((String) original.get("kind")) {
            case "Sandbox" -> Crd.Sandbox.class;
            case "SandboxClaim" -> Crd.SandboxClaim.class;
            case "SandboxTemplate" -> Crd.SandboxTemplate.class;
            case "SandboxWarmPool" -> Crd.SandboxWarmPool.class;
            default -> throw new AssertionError(original.get("kind"));
        };
        KubernetesResource typed = JSON.unmarshal(yaml, type);
        Map<String, Object> back = JSON.unmarshal(JSON.asJson(typed), Map.class);
        assertThat(back).isEqualTo(original);
    }

    @Test
    void aClaimThisBackendMakesHasNoEnvAndDeletesItsSandbox() {
        Crd.SandboxClaim c = new Crd.SandboxClaim();
        c.setSpec(new Crd.ClaimSpec(null, null, new Crd.Lifecycle("Delete", "2026-11-27T20:00:00Z", null), null,
                new Crd.Ref("p")));
        assertThat(JSON.asJson(c)).contains("\"apiVersion\":\"extensions.agents.x-k8s.io/v1beta1\"")
                .contains("\"kind\":\"SandboxClaim\"").contains("\"warmPoolRef\":{\"name\":\"p\"}")
                .contains("\"shutdownPolicy\":\"Delete\"").doesNotContain("env");
    }
}
