package io.sluice.engine.net;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a small MaxMind DB (format 2.0, 24-bit records) of autonomous systems for tests, from the format's
 * published specification: a binary search tree over the address bits, 16 zero bytes, a data section of one map per
 * network ({@code autonomous_system_number}, {@code autonomous_system_organization}), then the metadata after its
 * marker. No MaxMind file is shipped with the tests: this makes one of the shape GeoLite2-ASN has.
 */
final class TinyMmdb {

    /** One network: its address (4 or 16 bytes), prefix length, AS number and organization. */
    record Entry(byte[] address, int prefix, long asn, String organization) {
        static Entry of(String cidr, long asn, String organization) {
            int slash = cidr.indexOf('/');
            return new Entry(IpAddress.parse(cidr.substring(0, slash)).toBytes(),
                    Integer.parseInt(cidr.substring(slash + 1)), asn, organization);
        }
    }

    private final int ipVersion;
    private final List<int[]> nodes = new ArrayList<>();
    private final ByteArrayOutputStream data = new ByteArrayOutputStream();

    private TinyMmdb(int ipVersion) {
        this.ipVersion = ipVersion;
        nodes.add(new int[] {EMPTY, EMPTY});
    }

    private static final int EMPTY = -1;

    /**
     * A database of {@code ipVersion} (4: 32-bit tree; 6: 128-bit, where an IPv4 entry is placed under ::/96 as
     * GeoLite2 does).
     */
    static byte[] write(int ipVersion, List<Entry> entries) {
        TinyMmdb db = new TinyMmdb(ipVersion);
        for (Entry entry : entries) {
            db.insert(entry);
        }
        return db.bytes();
    }

    private void insert(Entry entry) {
        byte[] address = entry.address();
        int prefix = entry.prefix();
        if (ipVersion == 6 && address.length == 4) {
            byte[] wide = new byte[16];
            System.arraycopy(address, 0, wide, 12, 4);
            address = wide;
            prefix += 96;
        }
        int offset = data.size();
        map(2);
        string("autonomous_system_number");
        unsigned(6, entry.asn());
        string("autonomous_system_organization");
        string(entry.organization());
        int node = 0;
        for (int bit = 0; bit < prefix; bit++) {
            int side = (address[bit / 8] >> (7 - bit % 8)) & 1;
            if (bit == prefix - 1) {
                nodes.get(node)[side] = -2 - offset; // data
            } else {
                int next = nodes.get(node)[side];
                if (next < 0) {
                    nodes.add(new int[] {EMPTY, EMPTY});
                    next = nodes.size() - 1;
                    nodes.get(node)[side] = next;
                }
                node = next;
            }
        }
    }

    private byte[] bytes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int count = nodes.size();
        for (int[] node : nodes) {
            for (int side = 0; side < 2; side++) {
                int value = node[side];
                long record = value == EMPTY ? count : value <= -2 ? count + 16L + (-2 - value) : value;
                out.write((int) (record >>> 16));
                out.write((int) (record >>> 8));
                out.write((int) record);
            }
        }
        out.writeBytes(new byte[16]);
        out.writeBytes(data.toByteArray());
        out.writeBytes("\u00ab\u00cd\u00efMaxMind.com".getBytes(StandardCharsets.ISO_8859_1));
        data.reset();
        map(9);
        string("node_count");
        unsigned(6, count);
        string("record_size");
        unsigned(5, 24);
        string("ip_version");
        unsigned(5, ipVersion);
        string("database_type");
        string("GeoLite2-ASN");
        string("languages");
        data.write(0); // array of 0: extended type 11
        data.write(11 - 7);
        string("binary_format_major_version");
        unsigned(5, 2);
        string("binary_format_minor_version");
        unsigned(5, 0);
        string("build_epoch");
        byte[] epoch = minimal(1_764_600_000L);
        data.write(epoch.length); // uint64: extended type 9
        data.write(9 - 7);
        data.writeBytes(epoch);
        string("description");
        map(1);
        string("en");
        string("a test database of autonomous systems");
        out.writeBytes(data.toByteArray());
        return out.toByteArray();
    }

    private void map(int pairs) {
        data.write(7 << 5 | pairs);
    }

    private void string(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length >= 29) {
            data.write(2 << 5 | 29);
            data.write(bytes.length - 29);
        } else {
            data.write(2 << 5 | bytes.length);
        }
        data.writeBytes(bytes);
    }

    /** An unsigned integer of {@code type} (5: uint16, 6: uint32) in as few bytes as it needs. */
    private void unsigned(int type, long value) {
        byte[] bytes = minimal(value);
        data.write(type << 5 | bytes.length);
        data.writeBytes(bytes);
    }

    private static byte[] minimal(long value) {
        int length = 0;
        for (long rest = value; rest != 0; rest >>>= 8) {
            length++;
        }
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[length - 1 - i] = (byte) (value >>> (8 * i));
        }
        return bytes;
    }
}
