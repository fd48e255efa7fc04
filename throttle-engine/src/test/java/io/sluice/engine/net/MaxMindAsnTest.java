package io.sluice.engine.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A MaxMind DB of autonomous systems (GeoLite2-ASN's shape, made by {@link TinyMmdb}) read into the same table as
 * iptoasn's TSV: told apart by its metadata marker, its networks walked into ranges.
 */
class MaxMindAsnTest {

    private static final List<TinyMmdb.Entry> ENTRIES = List.of(
            TinyMmdb.Entry.of("1.0.0.0/24", 13335, "CLOUDFLARENET"),
            TinyMmdb.Entry.of("3.5.0.0/16", 16509, "AMAZON-02"),
            TinyMmdb.Entry.of("5.6.7.128/25", 3320, "Deutsche Telekom AG"),
            TinyMmdb.Entry.of("2001:db8::/32", 64501, "TEST-SIX"));

    @TempDir
    Path dir;

    @Test
    void anIpv6DatabaseWithIpv4UnderItsFirst96BitsIsReadIntoRanges() throws IOException {
        Path file = Files.write(dir.resolve("GeoLite2-ASN.mmdb"), TinyMmdb.write(6, ENTRIES));

        AsnTable table = AsnTable.read(file);

        assertEquals(3, table.ipv4Ranges());
        assertEquals(1, table.ipv6Ranges());
        assertEquals(13335, table.lookup(IpAddress.parse("1.0.0.255")));
        assertEquals(AsnTable.NONE, table.lookup(IpAddress.parse("1.0.1.0")));
        assertEquals(16509, table.lookup(IpAddress.parse("3.5.255.1")));
        assertEquals(3320, table.lookup(IpAddress.parse("5.6.7.128")));
        assertEquals(AsnTable.NONE, table.lookup(IpAddress.parse("5.6.7.127")));
        assertEquals(64501, table.lookup(IpAddress.parse("2001:db8:ffff::1")));
        assertEquals(AsnTable.NONE, table.lookup(IpAddress.parse("2001:db9::1")));
        assertEquals("AMAZON-02", table.description(16509));
        assertEquals("Deutsche Telekom AG", table.description(3320));
        assertEquals(file.toString(), table.source());
    }

    @Test
    void anIpv4DatabaseToo() throws IOException {
        Path file = Files.write(dir.resolve("asn.mmdb"), TinyMmdb.write(4, ENTRIES.subList(0, 3)));

        AsnTable table = AsnTable.read(file);

        assertEquals(3, table.ranges());
        assertEquals(16509, table.lookup(IpAddress.parse("3.5.0.0")));
        assertNull(table.description(64501));
    }

    @Test
    void aBrokenDatabaseIsTheClearErrorAndATsvIsNotTakenForOne() throws IOException {
        byte[] good = TinyMmdb.write(6, ENTRIES);
        Path broken = Files.write(dir.resolve("broken.mmdb"), Arrays.copyOfRange(good, 40, good.length));

        AsnFileException problem = assertThrows(AsnFileException.class, () -> AsnTable.read(broken));
        assertTrue(problem.getMessage().startsWith(broken + ": not a MaxMind DB of autonomous systems"),
                problem.getMessage());

        Path tsv = Files.writeString(dir.resolve("ip2asn-v4.tsv"), "1.0.0.0\t1.0.0.255\t13335\tUS\tX\n");
        assertEquals(13335, AsnTable.read(tsv).lookup(IpAddress.parse("1.0.0.1")));
    }
}
