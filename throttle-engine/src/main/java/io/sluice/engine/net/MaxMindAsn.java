package io.sluice.engine.net;

import com.maxmind.db.DatabaseRecord;
import com.maxmind.db.InvalidNetworkException;
import com.maxmind.db.Network;
import com.maxmind.db.Networks;
import com.maxmind.db.Reader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A MaxMind DB of autonomous systems (GeoLite2-ASN, or any {@code .mmdb} whose records hold
 * {@code autonomous_system_number} and {@code autonomous_system_organization}) read into an {@link AsnTable}: its
 * networks are walked once, in address order, with MaxMind's own reader, and each becomes a range of the table's
 * arrays. Lookups are then the table's (a binary search, no allocation), not the database's (which decodes a record
 * per lookup), and the database is closed once read. Told from a TSV by its metadata marker, which a MaxMind DB has
 * in its last 128 KiB.
 */
final class MaxMindAsn {

    /** What starts a MaxMind DB's metadata section (the format's specification). */
    private static final byte[] MARKER = "\u00ab\u00cd\u00efMaxMind.com".getBytes(StandardCharsets.ISO_8859_1);
    /** The metadata section is in the file's last 128 KiB. */
    private static final int TAIL = 128 * 1024;
    private static final String NUMBER = "autonomous_system_number";
    private static final String ORGANIZATION = "autonomous_system_organization";

    private MaxMindAsn() {
    }

    /** Whether {@code file} is a MaxMind DB (its metadata marker in its last 128 KiB). */
    static boolean isMaxMindDb(Path file) throws IOException {
        try (SeekableByteChannel channel = Files.newByteChannel(file)) {
            long size = channel.size();
            int length = (int) Math.min(size, TAIL);
            ByteBuffer tail = ByteBuffer.allocate(length);
            channel.position(size - length);
            while (tail.hasRemaining() && channel.read(tail) >= 0) {
                // read the tail whole
            }
            return indexOf(tail.array(), tail.position()) >= 0;
        }
    }

    /**
     * Walks the database's networks into a table.
     *
     * @throws AsnFileException when it is not a MaxMind DB of autonomous systems (the network it failed at named)
     */
    static AsnTable read(Path file, String source) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, source);
        }
    }

    /** {@link #read(Path, String)} from the database's bytes. */
    @SuppressWarnings("rawtypes")
    static AsnTable read(InputStream in, String source) throws IOException {
        AsnTable.Builder builder = new AsnTable.Builder(source);
        long number = 0;
        try (Reader reader = new Reader(in)) {
            Networks<Map> networks = reader.networks(false, Map.class);
            while (networks.hasNext()) {
                DatabaseRecord<Map> record = networks.next();
                number++;
                Object asn = record.getData() == null ? null : record.getData().get(NUMBER);
                if (!(asn instanceof Number value) || value.longValue() < 0 || value.longValue() > AsnTable.MAX_ASN) {
                    continue; // a network the database knows no AS of
                }
                IpAddress[] range = range(record.getNetwork());
                if (builder.range(range[0], range[1], value.longValue(), number)) {
                    Object organization = record.getData().get(ORGANIZATION);
                    builder.describe(value.longValue(), organization instanceof String text ? text : null);
                }
            }
        } catch (AsnFileException e) {
            throw e;
        } catch (IOException | InvalidNetworkException | RuntimeException e) {
            throw new AsnFileException(source, 0, "not a MaxMind DB of autonomous systems"
                    + (number > 0 ? " (after " + number + " networks)" : "") + ": " + e.getMessage());
        }
        return builder.build();
    }

    /**
     * The first and last address of a network. An IPv4 network of an IPv6 database (under {@code ::/96}) is an IPv4
     * range, as the table keys IPv4.
     */
    static IpAddress[] range(Network network) {
        byte[] bytes = network.getNetworkAddress().getAddress();
        int prefix = network.getPrefixLength();
        IpAddress address = IpAddress.ofBytes(bytes);
        if (bytes.length == 16 && address.high() == 0 && (address.low() >>> 32) == 0 && prefix >= 96) {
            address = IpAddress.ofIpv4((int) address.low());
            prefix -= 96;
        }
        if (address.isIpv4()) {
            long start = address.low() & (prefix == 0 ? 0 : 0xFFFF_FFFFL << (32 - prefix)) & 0xFFFF_FFFFL;
            long last = start | (prefix == 32 ? 0 : 0xFFFF_FFFFL >>> prefix);
            return new IpAddress[] {IpAddress.ofIpv4((int) start), IpAddress.ofIpv4((int) last)};
        }
        long highMask = prefix >= 64 ? -1L : prefix == 0 ? 0 : -1L << (64 - prefix);
        long lowMask = prefix <= 64 ? 0 : prefix == 128 ? -1L : -1L << (128 - prefix);
        long high = address.high() & highMask;
        long low = address.low() & lowMask;
        return new IpAddress[] {IpAddress.ofIpv6(high, low), IpAddress.ofIpv6(high | ~highMask, low | ~lowMask)};
    }

    private static int indexOf(byte[] bytes, int length) {
        for (int i = length - MARKER.length; i >= 0; i--) {
            int j = 0;
            while (j < MARKER.length && bytes[i + j] == MARKER[j]) {
                j++;
            }
            if (j == MARKER.length) {
                return i;
            }
        }
        return -1;
    }
}
