package dev.sandbox4j.kubernetes;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimSpec;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Version;

import java.util.List;
import java.util.Map;

/**
 * A typed model of kubernetes-sigs/agent-sandbox's four kinds at {@code v1beta1} (the only version since its 1.0), as
 * its CRDs ({@code helm/crds/*.yaml}, kept as test fixtures) define them: {@code Sandbox} in {@code agents.x-k8s.io};
 * {@code SandboxTemplate}, {@code SandboxClaim} and {@code SandboxWarmPool} in {@code extensions.agents.x-k8s.io}. The
 * pod template is fabric8's {@link PodSpec}. Internal: no fabric8 type reaches this module's public API.
 */
final class Crd {
    static final String GROUP = "agents.x-k8s.io";
    static final String EXTENSIONS = "extensions.agents.x-k8s.io";
    static final String VERSION = "v1beta1";

    private Crd() {
    }

    /** {@code metadata} of a pod template, or the claim's {@code additionalPodMetadata}. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record PodMetadata(Map<String, String> labels, Map<String, String> annotations) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record PodTemplate(PodMetadata metadata, PodSpec spec) {
    }

    /** An item of {@code volumeClaimTemplates}: a PVC's name, labels, annotations and spec (no apiVersion or kind). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record VolumeClaimTemplate(ClaimTemplateMetadata metadata, PersistentVolumeClaimSpec spec) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ClaimTemplateMetadata(String name, Map<String, String> labels, Map<String, String> annotations) {
    }

    /** A reference by name ({@code warmPoolRef}, {@code sandboxTemplateRef}). */
    record Ref(String name) {
    }

    // ---------------------------------------------------------------- Sandbox (agents.x-k8s.io)

    @Group(GROUP)
    @Version(VERSION)
    @Kind("Sandbox")
    @Plural("sandboxes")
    static final class Sandbox extends CustomResource<SandboxSpec, SandboxStatus> implements Namespaced {
        @Override
        protected SandboxSpec initSpec() {
            return null;
        }

        @Override
        protected SandboxStatus initStatus() {
            return null;
        }
    }

    /** {@code operatingMode}: Running or Suspended; {@code shutdownPolicy}: Delete or Retain. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record SandboxSpec(PodTemplate podTemplate, String operatingMode, Boolean service, String shutdownPolicy,
                       String shutdownTime, List<VolumeClaimTemplate> volumeClaimTemplates) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record SandboxStatus(List<Condition> conditions, String nodeName, List<String> podIPs, String selector,
                         String service, String serviceFQDN) {
    }

    // ---------------------------------------------------------------- SandboxTemplate

    @Group(EXTENSIONS)
    @Version(VERSION)
    @Kind("SandboxTemplate")
    @Plural("sandboxtemplates")
    static final class SandboxTemplate extends CustomResource<TemplateSpec, Void> implements Namespaced {
        @Override
        protected TemplateSpec initSpec() {
            return null;
        }

        @Override
        protected Void initStatus() {
            return null;
        }
    }

    /**
     * {@code envVarsInjectionPolicy}: Allowed, Overrides or Disallowed; {@code networkPolicyManagement}: Managed (the
     * controller makes a NetworkPolicy from {@code networkPolicy}) or Unmanaged.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record TemplateSpec(PodTemplate podTemplate, NetworkPolicySpec networkPolicy, String networkPolicyManagement,
                        String envVarsInjectionPolicy, Boolean service,
                        List<VolumeClaimTemplate> volumeClaimTemplates, String volumeClaimTemplatesPolicy) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record NetworkPolicySpec(List<NetworkPolicyIngressRule> ingress, List<NetworkPolicyEgressRule> egress) {
    }

    // ---------------------------------------------------------------- SandboxWarmPool

    @Group(EXTENSIONS)
    @Version(VERSION)
    @Kind("SandboxWarmPool")
    @Plural("sandboxwarmpools")
    static final class SandboxWarmPool extends CustomResource<WarmPoolSpec, WarmPoolStatus> implements Namespaced {
        @Override
        protected WarmPoolSpec initSpec() {
            return null;
        }

        @Override
        protected WarmPoolStatus initStatus() {
            return null;
        }
    }

    /** {@code updateStrategy.type}: Recreate or OnReplenish. {@code replicas: 0} is a cold-start pool. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record WarmPoolSpec(Integer replicas, Ref sandboxTemplateRef, UpdateStrategy updateStrategy) {
    }

    record UpdateStrategy(String type) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record WarmPoolStatus(Long observedGeneration, Integer readyReplicas, Integer replicas, String selector) {
    }

    // ---------------------------------------------------------------- SandboxClaim

    @Group(EXTENSIONS)
    @Version(VERSION)
    @Kind("SandboxClaim")
    @Plural("sandboxclaims")
    static final class SandboxClaim extends CustomResource<ClaimSpec, ClaimStatus> implements Namespaced {
        @Override
        protected ClaimSpec initSpec() {
            return null;
        }

        @Override
        protected ClaimStatus initStatus() {
            return null;
        }
    }

    /** {@code env} and {@code volumeClaimTemplates} force a cold start: this backend never sets them. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ClaimSpec(PodMetadata additionalPodMetadata, List<ClaimEnv> env, Lifecycle lifecycle,
                     List<VolumeClaimTemplate> volumeClaimTemplates, Ref warmPoolRef) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ClaimEnv(String containerName, String name, String value) {
    }

    /** {@code shutdownPolicy}: Delete, DeleteForeground or Retain (the default). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Lifecycle(String shutdownPolicy, String shutdownTime, Integer ttlSecondsAfterFinished) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ClaimStatus(List<Condition> conditions, ClaimedSandbox sandbox) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ClaimedSandbox(String name, List<String> podIPs) {
    }

    /** The condition of {@code type} in {@code conditions} (may be null), or null. */
    static Condition condition(List<Condition> conditions, String type) {
        if (conditions == null) {
            return null;
        }
        for (Condition c : conditions) {
            if (type.equals(c.getType())) {
                return c;
            }
        }
        return null;
    }
}
