package io.sluice.console.api;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.engine.policy.PolicyJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The certificates the operator has told the console to trust, one per server ({@code host:port}), like SSH's
 * {@code known_hosts}: written only when the operator accepts a fingerprint or connects with {@code --pin}, never
 * by a connection on its own. A server whose certificate no longer matches its pin is refused.
 */
public final class CertificatePins {
    private static final ObjectMapper JSON = PolicyJson.mapper();
    private final Path file;
    private final DurableFile files;
    private final Map<String, CertificatePin> pins = new ConcurrentHashMap<>();

    private CertificatePins(Path file, DurableFile files) {
        this.file = file;
        this.files = files;
    }

    /** Pins kept in {@code file} (JSON: server to fingerprint), beside the remembered connection settings. */
    public static CertificatePins inFile(Path file) {
        return inFile(file, DurableFile.SYSTEM);
    }

    /** Pins kept in {@code file}, written through {@code files}. */
    static CertificatePins inFile(Path file, DurableFile files) {
        CertificatePins pins = new CertificatePins(file, files);
        if (Files.exists(file)) {
            try {
                Map<String, String> read = JSON.readValue(file.toFile(), new TypeReference<Map<String, String>>() { });
                read.forEach((server, fingerprint) -> pins.pins.put(server, CertificatePin.parse(fingerprint)));
            } catch (IOException | IllegalArgumentException e) {
                throw new IllegalStateException("cannot read the pinned certificates in " + file + ": "
                        + e.getMessage() + "; fix or delete the file", e);
            }
        }
        return pins;
    }

    /** Pins for this run only. */
    public static CertificatePins inMemory() {
        return new CertificatePins(null, DurableFile.SYSTEM);
    }

    /** The pin of {@code server} ({@code host:port}), if the operator trusted one. */
    public Optional<CertificatePin> pinned(String server) {
        return Optional.ofNullable(pins.get(server));
    }

    /**
     * Trusts {@code pin} for {@code server} from now on, replacing any earlier pin; written (fsynced, renamed into
     * place, its directory fsynced: {@link DurableFile}) before it returns.
     */
    public synchronized void pin(String server, CertificatePin pin) throws IOException {
        if (pin.equals(pins.get(server))) {
            return;
        }
        if (file != null) {
            Map<String, String> document = new TreeMap<>();
            pins.forEach((where, fingerprint) -> document.put(where, fingerprint.fingerprint()));
            document.put(server, pin.fingerprint());
            // On the disk before the pin is trusted: a power cut must not forget what the operator accepted.
            files.write(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(document));
        }
        pins.put(server, pin);
    }
}
