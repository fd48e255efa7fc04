package io.sluice.server.state;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import io.sluice.engine.PolicyValidator;
import io.sluice.engine.governor.DomainNames;
import io.sluice.engine.governor.DomainSettings;
import io.sluice.engine.policy.FieldError;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.policy.PolicyJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The server's state on disk: {@code policy.json} (the whole policy, bans and pause included),
 * {@code audit.log} and {@code admin-token}. Everything survives a restart and a {@code kill -9}; a
 * damaged file is reported at start, never silently replaced by defaults.
 */
public final class StateDirectory {
    static final String POLICY = "policy.json";
    static final String AUDIT = "audit.log";
    static final String TOKEN = "admin-token";
    static final String WORKER_TOKEN = "worker-token";
    static final String DOMAINS = "domains.json";
    private static final TypeReference<Map<String, DomainSettings>> DOMAIN_SETTINGS = new TypeReference<>() {
    };

    private final Path dir;
    private final Path initialPolicy;
    private final AuditLog audit;
    private final String token;
    private final String workerToken;

    private StateDirectory(Path dir, Path initialPolicy) {
        this.dir = dir;
        this.initialPolicy = initialPolicy;
        this.token = loadOrCreateToken(TOKEN);
        this.workerToken = loadOrCreateToken(WORKER_TOKEN);
        this.audit = new AuditLog(dir.resolve(AUDIT));
    }

    /**
     * Opens (creating if needed, owner-only) the state directory.
     *
     * @param initialPolicy the policy to start from when the directory holds none, or null for the defaults
     */
    public static StateDirectory open(Path dir, Path initialPolicy) {
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
                if (posix()) {
                    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
                }
            }
        } catch (IOException e) {
            throw new StateException("cannot create state directory " + dir + ": " + e.getMessage(), e);
        }
        if (!Files.isWritable(dir)) {
            throw new StateException("state directory " + dir + " is not writable");
        }
        return new StateDirectory(dir, initialPolicy);
    }

    public Path path() {
        return dir;
    }

    /** The saved policy; else the initial policy file; else the defaults. */
    public Policy loadPolicy() {
        Path saved = dir.resolve(POLICY);
        if (Files.exists(saved)) {
            return read(saved, "state file");
        }
        if (initialPolicy != null) {
            return read(initialPolicy, "policy file");
        }
        return Policy.defaults();
    }

    /** Reads and validates a policy file; {@code what} names it in the message of the {@link StateException}. */
    public static Policy read(Path file, String what) {
        Policy policy;
        try {
            policy = PolicyJson.mapper().readValue(Files.readString(file, StandardCharsets.UTF_8), Policy.class);
        } catch (JsonProcessingException e) {
            throw new StateException("corrupt " + what + " " + file + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new StateException("cannot read " + what + " " + file + ": " + e.getMessage(), e);
        }
        if (policy == null) {
            throw new StateException("corrupt " + what + " " + file + ": empty");
        }
        List<FieldError> errors = PolicyValidator.validate(policy);
        if (!errors.isEmpty()) {
            throw new StateException("invalid " + what + " " + file + ": " + errors.stream()
                    .map(e -> e.field() + ": " + e.message()).collect(Collectors.joining("; ")));
        }
        return policy;
    }

    /** Durably replaces the saved policy (temp file, fsync, atomic rename). */
    public void savePolicy(Policy policy) throws IOException {
        AtomicFiles.write(dir.resolve(POLICY), PolicyJson.mapper().writerWithDefaultPrettyPrinter()
                .writeValueAsBytes(policy));
    }

    /** The crawl governor's saved operator settings and given-up marks; empty before the first one. */
    public Map<String, DomainSettings> loadDomainSettings() {
        Path file = dir.resolve(DOMAINS);
        if (!Files.exists(file)) {
            return Map.of();
        }
        try {
            Map<String, DomainSettings> settings = PolicyJson.mapper().readValue(
                    Files.readString(file, StandardCharsets.UTF_8), DOMAIN_SETTINGS);
            if (settings == null) {
                throw new StateException("corrupt state file " + file + ": empty");
            }
            settings.keySet().forEach(DomainNames::normalise);
            return settings;
        } catch (JsonProcessingException e) {
            throw new StateException("corrupt state file " + file + ": " + e.getOriginalMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new StateException("corrupt state file " + file + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new StateException("cannot read state file " + file + ": " + e.getMessage(), e);
        }
    }

    /** Durably replaces the saved domain settings (temp file, fsync, atomic rename). */
    public void saveDomainSettings(Map<String, DomainSettings> settings) throws IOException {
        AtomicFiles.write(dir.resolve(DOMAINS), PolicyJson.mapper().writerWithDefaultPrettyPrinter()
                .writeValueAsBytes(settings));
    }

    public AuditLog audit() {
        return audit;
    }

    /** The bearer token every admin call must carry. */
    public String adminToken() {
        return token;
    }

    /**
     * The token crawler workers use for the permit API: it opens {@code /api/v1/permits} and
     * {@code /api/v1/feedback} and nothing else, so a worker fleet never holds the admin token.
     */
    public String workerToken() {
        return workerToken;
    }

    private String loadOrCreateToken(String name) {
        Path file = dir.resolve(name);
        try {
            if (Files.exists(file)) {
                String existing = Files.readString(file, StandardCharsets.UTF_8).trim();
                if (existing.length() < 16) {
                    throw new StateException(name + " in " + file + " is too short (" + existing.length()
                            + " characters); delete the file to generate a new one");
                }
                return existing;
            }
            byte[] random = new byte[32];
            new SecureRandom().nextBytes(random);
            String created = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
            Path temp = file.resolveSibling(name + ".tmp");
            Files.deleteIfExists(temp);
            Set<StandardOpenOption> options = EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            // Owner-only from the moment the file exists: the token is never readable by others.
            FileAttribute<?>[] ownerOnly = posix()
                    ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rw-------"))}
                    : new FileAttribute<?>[0];
            try (FileChannel channel = FileChannel.open(temp, options, ownerOnly)) {
                channel.write(ByteBuffer.wrap((created + "\n").getBytes(StandardCharsets.UTF_8)));
                channel.force(true);
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
            AtomicFiles.syncDirectory(dir);
            return created;
        } catch (IOException e) {
            throw new StateException("cannot read or create the " + name + " " + file + ": " + e.getMessage(), e);
        }
    }

    private static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }
}
