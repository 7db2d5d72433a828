package dev.sandbox4j.core.egress;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AddressDenyListTest {
    private final AddressDenyList list = AddressDenyList.standard();

    @Test
    void deniedRanges_haveTheirReason() throws UnknownHostException {
        Map<String, String> cases = Map.ofEntries(
                Map.entry("127.0.0.1", "loopback"),
                Map.entry("127.255.0.9", "loopback"),
                Map.entry("10.1.2.3", "private"),
                Map.entry("172.16.0.1", "private"),
                Map.entry("172.31.255.255", "private"),
                Map.entry("192.168.1.1", "private"),
                Map.entry("100.64.0.1", "shared"),
                Map.entry("100.127.255.254", "shared"),
                Map.entry("169.254.169.254", "cloud metadata"),
                Map.entry("169.254.1.1", "link-local"),
                Map.entry("0.0.0.0", "this network"),
                Map.entry("0.1.2.3", "this network"),
                Map.entry("224.0.0.1", "multicast"),
                Map.entry("239.255.255.250", "multicast"),
                Map.entry("255.255.255.255", "broadcast"),
                Map.entry("240.0.0.1", "reserved"),
                Map.entry("::", "unspecified"),
                Map.entry("::1", "loopback"),
                Map.entry("fc00::1", "unique local"),
                Map.entry("fd12:3456::1", "unique local"),
                Map.entry("fe80::1", "link-local"),
                Map.entry("febf::1", "link-local"),
                Map.entry("fec0::1", "site-local"),
                Map.entry("ff02::1", "multicast"),
                Map.entry("::127.0.0.1", "loopback (IPv4-compatible)"),
                Map.entry("64:ff9b::a9fe:a9fe", "cloud metadata) (NAT64"),
                Map.entry("2002:a9fe:a9fe::1", "cloud metadata) (6to4"),
                Map.entry("2002:0a00:0001::1", "private (RFC 1918) (6to4)"));
        cases.forEach((addr, reason) -> {
            try {
                assertThat(list.deniedReason(InetAddress.getByName(addr), 80)).as(addr).contains(reason);
            } catch (UnknownHostException e) {
                throw new AssertionError(e);
            }
        });
    }

    @Test
    void ipv4MappedBytes_areCheckedAsTheirIpv4Address() throws UnknownHostException {
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        mapped[12] = (byte) 169;
        mapped[13] = (byte) 254;
        mapped[14] = (byte) 169;
        mapped[15] = (byte) 254;
        // java turns a 16-byte mapped address into an Inet4Address; the category check sees through both forms
        assertThat(list.deniedReason(InetAddress.getByAddress(mapped), 80)).contains("cloud metadata");
        assertThat(list.deniedReason(InetAddress.getByName("::ffff:10.0.0.1"), 80)).contains("private");
        java.net.Inet6Address forced = java.net.Inet6Address.getByAddress(null, mapped, -1);
        assertThat(AddressDenyList.categorize(forced)).contains("cloud metadata").contains("IPv4-mapped");
    }

    @Test
    void publicAddresses_pass() throws UnknownHostException {
        for (String a : new String[] {"93.184.216.34", "8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1",
                "11.0.0.1", "2606:4700:4700::1111", "2001:db8::1"}) {
            assertThat(AddressDenyList.categorize(InetAddress.getByName(a))).as(a).isNull();
        }
    }

    @Test
    void theHostsOwnAddresses_areDenied() throws Exception {
        for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress a : Collections.list(nif.getInetAddresses())) {
                assertThat(list.deniedReason(a, 443)).as(a.toString()).isNotNull();
            }
        }
    }

    @Test
    void exemption_isExactlyOneAddressAndPort() throws UnknownHostException {
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        AddressDenyList relaxed = list.exemptingForTests(new InetSocketAddress(lo, 8080));
        assertThat(relaxed.deniedReason(lo, 8080)).isNull();
        assertThat(relaxed.deniedReason(lo, 8081)).isEqualTo("loopback");
        assertThat(relaxed.deniedReason(InetAddress.getByName("127.0.0.2"), 8080)).isEqualTo("loopback");
        assertThat(list.deniedReason(lo, 8080)).as("the original list is unchanged").isEqualTo("loopback");
        assertThat(AddressDenyList.disabled().deniedReason(lo, 1)).isNull();
    }
}
