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
 * The SHA-256 fingerprints of self-signed admin certificates the console has accepted, one per server
 * ({@code host:port}), pinned the first time it connects, like SSH's {@code known_hosts}. A server whose
 * certificate no longer matches its pin is refused; only removing the pin (the file, or its line) accepts
 * a new one.
 */
public final class CertificatePins {
    private static final ObjectMapper JSON = PolicyJson.mapper();
    private final Path file;
    private final Map<String, String> pins = new ConcurrentHashMap<>();

    private CertificatePins(Path file) {
        this.file = file;
    }

    /** Pins kept in {@code file} (JSON: server to fingerprint), beside the remembered connection settings. */
    public static CertificatePins inFile(Path file) {
        CertificatePins pins = new CertificatePins(file);
        if (Files.exists(file)) {
            try {
                pins.pins.putAll(JSON.readValue(file.toFile(), new TypeReference<Map<String, String>>() { }));
            } catch (IOException e) {
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

    public Optional<String> pinned(String server) {
        return Optional.ofNullable(pins.get(server));
    }

    /** Pins {@code fingerprint} for {@code server}, unless one is pinned already; returns true if it was new. */
    synchronized boolean pinIfAbsent(String server, String fingerprint) throws IOException {
        if (pins.putIfAbsent(server, fingerprint) != null) {
            return false;
        }
        if (file != null) {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path temp = Files.createTempFile(file.toAbsolutePath().getParent(), ".known-servers", ".tmp");
            try {
                JSON.writerWithDefaultPrettyPrinter().writeValue(temp.toFile(), new TreeMap<>(pins));
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(temp);
            }
        }
        return true;
    }
}
