package io.sluice.server.ranges;

import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.net.AsnFileException;
import io.sluice.engine.net.AsnTable;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The operator's IP-to-ASN file ({@code --asn-file}), read into the engine ({@link ThrottleEngine#useAsnTable}): at
 * start, where a file that cannot be used stops the server with the reason, and at each reload (SIGHUP), where it is
 * read again whole, even under the same name (a fresh download put in its place), and a file that cannot be used
 * changes nothing: the table in use stays. Reads happen on the caller's thread (the start, the reload thread), never
 * on a request's.
 */
public final class AsnFile {

    private final ThrottleEngine engine;

    public AsnFile(ThrottleEngine engine) {
        this.engine = engine;
    }

    /**
     * Reads {@code file} and has the engine use it from the next request on; null forgets the table in use.
     *
     * @return what was done, for the log: the file and how many ranges and systems it holds
     * @throws IOException naming the file and why when it cannot be read or is not an IP-to-ASN file (its line);
     *                     then the engine keeps the table it had
     */
    public String use(Path file) throws IOException {
        if (file == null) {
            boolean had = !engine.asnTable().isEmpty();
            engine.useAsnTable(null);
            return had ? "IP-to-ASN file: none any more (no address is in any autonomous system)" : null;
        }
        AsnTable table;
        try {
            table = AsnTable.read(file);
        } catch (AsnFileException e) {
            throw new IOException("the IP-to-ASN file cannot be used: " + e.getMessage(), e);
        } catch (NoSuchFileException e) {
            throw new IOException("the IP-to-ASN file " + file + " does not exist", e);
        } catch (AccessDeniedException e) {
            throw new IOException("the IP-to-ASN file " + file + " cannot be read: permission denied", e);
        } catch (IOException e) {
            throw new IOException("the IP-to-ASN file " + file + " cannot be read: " + e.getMessage(), e);
        }
        engine.useAsnTable(table);
        return describe(table);
    }

    /** "IP-to-ASN file /var/lib/ip2asn-combined.tsv: 512,345 ranges (IPv4 ..., IPv6 ...), 78,123 systems, 16 MB". */
    public static String describe(AsnTable table) {
        return String.format(Locale.ROOT, "IP-to-ASN file %s: %,d ranges (IPv4 %,d, IPv6 %,d) in %,d "
                        + "autonomous systems, %.1f MB of heap", table.source(), table.ranges(), table.ipv4Ranges(),
                table.ipv6Ranges(), table.systems(), table.heapBytes() / 1e6);
    }
}
