package dev.sandbox4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class NetworkPolicyTest {
    @Test
    void none_isTheDefaultAndPermitsNothing() {
        assertThat(SandboxSpec.defaults().network()).isSameAs(NetworkPolicy.NONE);
        assertThat(NetworkPolicy.none()).isSameAs(NetworkPolicy.NONE);
        assertThat(NetworkPolicy.allowDomains()).isSameAs(NetworkPolicy.NONE);
        assertThat(NetworkPolicy.NONE.permits("example.com", 443)).isFalse();
        assertThat(NetworkPolicy.NONE.toString()).isEqualTo("none");
    }

    @Test
    void allowAll_keepsTheDenyListUnlessOptedOutByName() {
        assertThat(NetworkPolicy.allowAll()).isSameAs(NetworkPolicy.ALLOW_ALL);
        assertThat(NetworkPolicy.ALLOW_ALL.addressDenyList()).isTrue();
        assertThat(NetworkPolicy.ALLOW_ALL.permits("anything.example", 22)).isTrue();
        assertThat(NetworkPolicy.ALLOW_ALL.permits("anything.example", 0)).isFalse();
        NetworkPolicy open = NetworkPolicy.allowAllIncludingPrivateAddresses();
        assertThat(open.addressDenyList()).isFalse();
        assertThat(open).isNotEqualTo(NetworkPolicy.ALLOW_ALL);
        assertThat(open.toString()).isEqualTo("all (no address deny-list)");
    }

    @Test
    void exactEntry_matchesThatNameOnWebPorts() {
        NetworkPolicy p = NetworkPolicy.allowDomains("PyPI.org");
        assertThat(p.mode()).isEqualTo(NetworkPolicy.Mode.DOMAINS);
        assertThat(p.permits("pypi.org", 443)).isTrue();
        assertThat(p.permits("PYPI.ORG.", 80)).isTrue();
        assertThat(p.permits("pypi.org", 22)).isFalse();
        assertThat(p.permits("files.pypi.org", 443)).isFalse();
        assertThat(p.permits("evilpypi.org", 443)).isFalse();
        assertThat(p.permits("pypi.org.evil.com", 443)).isFalse();
    }

    @Test
    void wildcardEntry_matchesSubdomainsOnly() {
        NetworkPolicy p = NetworkPolicy.allowDomains("*.pythonhosted.org");
        assertThat(p.permits("files.pythonhosted.org", 443)).isTrue();
        assertThat(p.permits("a.b.pythonhosted.org", 443)).isTrue();
        assertThat(p.permits("pythonhosted.org", 443)).isFalse();
        assertThat(p.permits("evilpythonhosted.org", 443)).isFalse();
    }

    @Test
    void ports_explicitOrAny() {
        NetworkPolicy p = NetworkPolicy.allowDomains("a.example:8443", "b.example:*");
        assertThat(p.permits("a.example", 8443)).isTrue();
        assertThat(p.permits("a.example", 443)).isFalse();
        assertThat(p.permits("b.example", 22)).isTrue();
        assertThat(p.domains()).extracting(Object::toString).containsExactly("a.example:8443", "b.example:*");
        assertThat(p.toString()).isEqualTo("domains [a.example:8443, b.example:*]");
    }

    @Test
    void ipLiteralsAreNeverPermittedByAnAllowList() {
        NetworkPolicy p = NetworkPolicy.allowDomains("*.example.com:*");
        assertThat(p.permits("127.0.0.1", 80)).isFalse();
        assertThat(p.permits("[::1]", 80)).isFalse();
        assertThat(p.permits(null, 80)).isFalse();
    }

    @Test
    void badEntries_failWithTheEntryNamed() {
        for (String bad : List.of("127.0.0.1", "10.1", "0x7f000001", "[::1]", "::1", "*", "*.com", "http://x.org",
                "x.org:0", "x.org:65536", "x.org:ab", "", "a..b", "-a.org", "a b.org", "x.org/path")) {
            assertThatThrownBy(() -> NetworkPolicy.allowDomains(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'" + bad + "'");
        }
        assertThatThrownBy(() -> NetworkPolicy.allowDomains((String) null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void valueSemantics() {
        assertThat(NetworkPolicy.allowDomains("a.org", "b.org", "a.org"))
                .isEqualTo(NetworkPolicy.allowDomains(List.of("A.org", "b.org")))
                .hasSameHashCodeAs(NetworkPolicy.allowDomains("a.org", "b.org"));
        assertThat(NetworkPolicy.allowDomains("a.org").domains()).hasSize(1);
        assertThat(SandboxSpec.builder().network(NetworkPolicy.allowDomains("a.org")).build().network().toString())
                .isEqualTo("domains [a.org]");
    }
}
