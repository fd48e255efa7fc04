package io.sluice.console.api;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.engine.policy.PolicyJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
    private final Map<String, CertificatePin> pins = new ConcurrentHashMap<>();

    private CertificatePins(Path file) {
        this.file = file;
    }

    /** Pins kept in {@code file} (JSON: server to fingerprint), beside the remembered connection settings. */
    public static CertificatePins inFile(Path file) {
        CertificatePins pins = new CertificatePins(file);
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
        return new CertificatePins(null);
    }

    /** The pin of {@code server} ({@code host:port}), if the operator trusted one. */
    public Optional<CertificatePin> pinned(String server) {
        return Optional.ofNullable(pins.get(server));
    }

    /** Trusts {@code pin} for {@code server} from now on, replacing any earlier pin; written before it returns. */
    public synchronized void pin(String server, CertificatePin pin) throws IOException {
        if (pin.equals(pins.get(server))) {
            return;
        }
        if (file != null) {
            Map<String, String> document = new TreeMap<>();
            pins.forEach((where, fingerprint) -> document.put(where, fingerprint.fingerprint()));
            document.put(server, pin.fingerprint());
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path temp = Files.createTempFile(file.toAbsolutePath().getParent(), ".known-servers", ".tmp");
            try {
                JSON.writerWithDefaultPrettyPrinter().writeValue(temp.toFile(), document);
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(temp);
            }
        }
        pins.put(server, pin);
    }
}
