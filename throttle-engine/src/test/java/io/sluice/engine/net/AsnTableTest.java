package io.sluice.engine.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AsnTableTest {

    /** Lines as iptoasn's ip2asn-combined.tsv has them (IPv4 first, then IPv6; AS 0 is "not routed"). */
    static final String COMBINED = String.join("\n",
            "0.0.0.0\t0.255.255.255\t0\tNone\tNot routed",
            "1.0.0.0\t1.0.0.255\t13335\tUS\tCLOUDFLARENET",
            "1.0.1.0\t1.0.3.255\t0\tNone\tNot routed",
            "3.0.0.0\t3.1.255.255\t16509\tUS\tAMAZON-02",
            "3.2.0.0\t3.2.0.255\t16509\tUS\tAMAZON-02",
            "35.190.0.0\t35.191.255.255\t15169\tUS\tGOOGLE",
            "255.255.255.0\t255.255.255.255\t4294967295\tZZ\tTop of the space",
            "2001:200::\t2001:200:ffff:ffff:ffff:ffff:ffff:ffff\t2500\tJP\tWIDE-BB WIDE Project",
            "2600:1f00::\t2600:1fff:ffff:ffff:ffff:ffff:ffff:ffff\t16509\tUS\tAMAZON-02",
            "") + "\n";

    private static AsnTable parse(String text) throws IOException {
        return AsnTable.parse(new StringReader(text), "ip2asn-combined.tsv");
    }

    @Test
    void looksUpIpv4AndIpv6RangesAtTheirEdges() throws IOException {
        AsnTable table = parse(COMBINED);

        assertEquals(13335, table.lookup(IpAddress.parse("1.0.0.0")));
        assertEquals(13335, table.lookup(IpAddress.parse("1.0.0.255")));
        assertEquals(AsnTable.NONE, table.lookup(IpAddress.parse("1.0.1.0")), "not routed: no AS");
        assertEquals(AsnTable.NONE, table.lookup(IpAddress.parse("0.0.0.1")));
        assertEquals(AsnTable.NONE, table.lookup(IpAddress.parse("2.0.0.1")), "between two ranges");
        assertEquals(16509, table.lookup(IpAddress.parse("3.1.7.9")));
        assertEquals(16509, table.lookup(IpAddress.parse("3.2.0.255")));
        assertEquals(AsnTable.NONE, table.lookup(IpAddress.parse("3.2.1.0")));
        assertEquals(15169, table.lookup(IpAddress.parse("35.191.1.1")), "above 2^31: unsigned order");
        assertEquals(AsnTable.MAX_ASN, table.lookup(IpAddress.parse("255.255.255.255")));
        assertEquals(2500, table.lookup(IpAddress.parse("2001:200::1")));
        assertEquals(16509, table.lookup(IpAddress.parse("2600:1f18::7")));
        assertEquals(AsnTable.NONE, table.lookup(IpAddress.parse("2600:2000::")));
        assertEquals(AsnTable.NONE, table.lookup(IpAddress.parse("::1")));
        assertEquals(13335, table.lookup(IpAddress.parse("::ffff:1.0.0.9")), "an IPv4-mapped address is IPv4");
        assertEquals(AsnTable.NONE, table.lookup(null));

        assertEquals(5, table.ipv4Ranges());
        assertEquals(2, table.ipv6Ranges());
        assertEquals(5, table.systems());
        assertEquals("AMAZON-02", table.description(16509));
        assertEquals("WIDE-BB WIDE Project", table.description(2500));
        assertNull(table.description(64512));
        assertEquals("ip2asn-combined.tsv", table.source());
    }

    @Test
    void readsTheU32FormGzipAndWindowsLineEnds(@TempDir Path dir) throws IOException {
        // ip2asn-v4-u32.tsv writes IPv4 starts and ends as numbers; 16777216 = 1.0.0.0
        String u32 = "16777216\t16777471\t13335\tUS\tCLOUDFLARENET\r\n"
                + "# a comment\r\n\r\n50331648\t50462719\t16509\tUS\tAMAZON-02\r\n";
        Path file = dir.resolve("ip2asn-v4-u32.tsv.gz");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(bytes)) {
            gzip.write(u32.getBytes(StandardCharsets.UTF_8));
        }
        Files.write(file, bytes.toByteArray());

        AsnTable table = AsnTable.read(file);

        assertEquals(13335, table.lookup(IpAddress.parse("1.0.0.200")));
        assertEquals(16509, table.lookup(IpAddress.parse("3.1.0.1")));
        assertEquals("CLOUDFLARENET", table.description(13335), "no carriage return kept");
        assertEquals(file.toString(), table.source());
    }

    @Test
    void aLaterRangeThatOverlapsAnswersWhereItLies() throws IOException {
        AsnTable table = parse("10.0.0.0\t10.0.255.255\t100\tZZ\twide\n10.0.1.0\t10.0.1.255\t200\tZZ\tnarrow\n");

        assertEquals(100, table.lookup(IpAddress.parse("10.0.0.5")));
        assertEquals(200, table.lookup(IpAddress.parse("10.0.1.5")));
    }

    @Test
    void badLinesAreNamedByNumber() {
        assertProblem("1.0.0.0\t1.0.0.255\n", 1, "three tab-separated fields");
        assertProblem("1.0.0.0\t1.0.0.255\t13335\tUS\tX\n1.0.1.0 1.0.1.255 7\n", 2, "three tab-separated");
        assertProblem("1.0.0.0\t1.0.0.255\tAS13335\tUS\tX\n", 1, "AS number 'AS13335'");
        assertProblem("1.0.0.0\t1.0.0.255\t4294967296\tUS\tX\n", 1, "above 4294967295");
        assertProblem("1.0.0.0\t1.0.0.255\t-1\tUS\tX\n", 1, "not a number");
        assertProblem("\n\n1.0.0.300\t1.0.0.255\t7\tUS\tX\n", 3, "range start '1.0.0.300'");
        assertProblem("1.0.0.0\tnowhere\t7\tUS\tX\n", 1, "range end 'nowhere'");
        assertProblem("1.0.0.0\t2001:db8::\t7\tUS\tX\n", 1, "starts at an IPv4 address and ends at an IPv6");
        assertProblem("1.0.0.9\t1.0.0.1\t7\tUS\tX\n", 1, "ends (1.0.0.1) before it starts (1.0.0.9)");
        assertProblem("2.0.0.0\t2.0.0.255\t7\tUS\tX\n1.0.0.0\t1.0.0.255\t7\tUS\tX\n", 2,
                "does not start after the one on line 1");
        assertProblem("2.0.0.0\t2.0.0.255\t0\tNone\tNot routed\n1.0.0.0\t1.0.0.255\t7\tUS\tX\n", 2,
                "sorted by range start");
        assertProblem("1.0.0.0\t1.0.0.255\t7\tUS\t" + "x".repeat(AsnTable.MAX_LINE) + "\n", 1, "longer than");
        assertProblem("", 0, "no routed range");
        assertProblem("0.0.0.0\t0.255.255.255\t0\tNone\tNot routed\n", 0, "no routed range");
    }

    @Test
    void eachFamilyIsSortedOnItsOwn() throws IOException {
        AsnTable table = parse("2001:db8::\t2001:db8::ffff\t7\tZZ\tsix\n1.0.0.0\t1.0.0.255\t8\tZZ\tfour\n"
                + "2001:db9::\t2001:db9::ffff\t9\tZZ\tsix again\n");

        assertEquals(7, table.lookup(IpAddress.parse("2001:db8::1")));
        assertEquals(8, table.lookup(IpAddress.parse("1.0.0.1")));
        assertEquals(9, table.lookup(IpAddress.parse("2001:db9::1")));
    }

    @Test
    void randomLinesGiveATableOrTheClearErrorNeverAnythingElse() {
        Random random = new Random(46);
        String[] pieces = {"1.0.0.0", "255.255.255.255", "::", "2001:db8::", "ffff::", "16777216", "0", "13335",
            "4294967295", "4294967296", "-", "", " ", "\t", "\t\t", "\r", "#", "AS", "x", "1.2.3", "::ffff:1.2.3.4",
            "[::1]", "fe80::1%eth0", "\u00e9", "\uffff", "99999999999", "1..1", "%", ":"};
        int tables = 0;
        for (int run = 0; run < 3_000; run++) {
            StringBuilder text = new StringBuilder();
            int lines = 1 + random.nextInt(4);
            for (int l = 0; l < lines; l++) {
                // a good line with each field kept, or replaced by a random piece or character
                String[] fields = {"1.0." + l + ".0", "1.0." + l + ".255", "13335", "US", "CLOUDFLARENET"};
                int count = random.nextInt(7);
                for (int f = 0; f < count; f++) {
                    String field = f < fields.length && random.nextInt(3) > 0 ? fields[f]
                            : random.nextInt(4) == 0 ? String.valueOf((char) random.nextInt(0x3000))
                            : pieces[random.nextInt(pieces.length)];
                    text.append(field).append(f + 1 < count ? "\t" : "");
                }
                text.append(random.nextInt(10) == 0 ? "\r\n" : "\n");
            }
            try {
                parse(text.toString()).lookup(IpAddress.parse("1.0.0.1"));
                tables++;
            } catch (AsnFileException expected) {
                assertTrue(expected.getMessage().startsWith("ip2asn-combined.tsv"), expected.getMessage());
            } catch (IOException | RuntimeException | Error e) {
                fail("'" + text + "' threw " + e, e);
            }
        }
        assertTrue(tables > 0, "some random files are tables");
    }

    @Test
    void randomBytesThroughTheGzipSnifferGiveOnlyTheClearErrorOrAnIoError() {
        Random random = new Random(47);
        for (int run = 0; run < 500; run++) {
            byte[] bytes = new byte[random.nextInt(300)];
            random.nextBytes(bytes);
            if (run % 2 == 0 && bytes.length > 2) {
                bytes[0] = 0x1f;
                bytes[1] = (byte) 0x8b; // a broken gzip stream: an IOException, as any unreadable file
            }
            try {
                AsnTable.parse(new ByteArrayInputStream(bytes), "random");
            } catch (AsnFileException | IOException expected) {
                // the clear error, or the file cannot be read
            } catch (RuntimeException | Error e) {
                fail("random bytes threw " + e, e);
            }
        }
    }

    /**
     * A file the size of iptoasn's combined one (400,000 IPv4 and 100,000 IPv6 ranges in 80,000 systems): what it
     * holds on the heap, counted and measured (printed for docs/manual/policy.md; only the count is asserted), and
     * its lookups still right at that size. What a lookup costs is no test's business: it has no figure yet.
     */
    @Test
    void aRealSizedFileTakesAboutSixteenMegabytes() throws IOException {
        long before = retained();
        String text = realSized(400_000, 100_000, 80_000);
        AsnTable table = parse(text);
        text = null;
        long after = retained();

        assertEquals(400_000, table.ipv4Ranges());
        assertEquals(100_000, table.ipv6Ranges());
        assertEquals(80_000, table.systems());
        long counted = table.heapBytes();
        System.out.printf("AsnTable of %d ranges, %d systems: %.1f MB counted, %.1f MB measured%n",
                table.ranges(), table.systems(), counted / 1e6, (after - before) / 1e6);
        assertTrue(counted < 20_000_000, "counted " + counted);

        // IPv4 range i starts at 16777216 + i * 4096 and spans 256 addresses
        assertEquals(1 + 123_450 % 80_000, table.lookupIpv4(16_777_216 + 123_450 * 4096 + 17));
        assertEquals(AsnTable.NONE, table.lookupIpv4(16_777_216 + 123_450 * 4096 + 300));
        assertEquals(1 + (4_660 * 7) % 80_000, table.lookup(IpAddress.parse("2001:db8:1234:ffff::1")));
        assertTrue(after - before > 0 && table.ranges() > 0, "the table is held while measured");
    }

    /** IPv4 ranges of 256 addresses every 4,096 from 1.0.0.0; IPv6 /48s from 2001:db8::; AS 1 .. systems. */
    static String realSized(int ipv4, int ipv6, int systems) {
        StringBuilder text = new StringBuilder(ipv4 * 50 + ipv6 * 80);
        for (int i = 0; i < ipv4; i++) {
            long start = 16_777_216L + i * 4096L;
            int asn = 1 + i % systems;
            text.append(IpAddress.ofIpv4((int) start)).append('\t').append(IpAddress.ofIpv4((int) (start + 255)))
                    .append('\t').append(asn).append("\tUS\tNETWORK-").append(asn).append(" Example Hosting Inc\n");
        }
        for (int i = 0; i < ipv6; i++) {
            long high = 0x2001_0db8_0000_0000L + ((long) i << 16);
            int asn = 1 + (i * 7) % systems;
            text.append(IpAddress.ofIpv6(high, 0)).append('\t').append(IpAddress.ofIpv6(high | 0xFFFF, -1L))
                    .append('\t').append(asn).append("\tDE\tNETWORK-").append(asn).append(" Example Hosting Inc\n");
        }
        return text.toString();
    }

    private static long retained() {
        Runtime runtime = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            used = Math.min(used, runtime.totalMemory() - runtime.freeMemory());
        }
        return used;
    }

    private static void assertProblem(String text, long line, String says) {
        AsnFileException problem = assertThrows(AsnFileException.class, () -> parse(text));
        assertEquals(line, problem.line(), problem.getMessage());
        assertTrue(problem.getMessage().contains(says), problem.getMessage());
        assertTrue(problem.getMessage().startsWith("ip2asn-combined.tsv" + (line > 0 ? " line " + line : ":")),
                problem.getMessage());
    }
}
