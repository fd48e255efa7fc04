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
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The server's state on disk: {@code policy.json} (the whole policy, bans and pause included),
 * {@code audit.log} (rotated), the tokens and {@code domains.json}. Everything survives a restart and a
 * {@code kill -9}; a damaged file is reported at start, never silently replaced by defaults, and so is a
 * directory or token file that others could read or change.
 */
public final class StateDirectory {
    static final String POLICY = "policy.json";
    static final String AUDIT = "audit.log";
    static final String TOKEN = TokenStore.ADMIN_FILE;
    static final String WORKER_TOKEN = TokenStore.WORKER_FILE;
    static final String DOMAINS = "domains.json";
    private static final TypeReference<Map<String, DomainSettings>> DOMAIN_SETTINGS = new TypeReference<>() {
    };

    private final Path dir;
    private final Path initialPolicy;
    private final AuditLog audit;
    private final String token;
    private final String workerToken;
    private final TokenStore tokens;

    private StateDirectory(Path dir, Path initialPolicy, long auditMaxBytes, int auditKeep) {
        this.dir = dir;
        this.initialPolicy = initialPolicy;
        this.tokens = TokenStore.open(dir, InstantSource.system());
        tokens.checkFiles();
        this.token = loadOrCreateToken(TOKEN);
        this.workerToken = loadOrCreateToken(WORKER_TOKEN);
        this.audit = new AuditLog(dir.resolve(AUDIT), auditMaxBytes, auditKeep);
    }

    /**
     * Opens (creating if needed, owner-only) the state directory, with the audit log's default rotation.
     *
     * @param initialPolicy the policy to start from when the directory holds none, or null for the defaults
     */
    public static StateDirectory open(Path dir, Path initialPolicy) {
        return open(dir, initialPolicy, AuditLog.DEFAULT_MAX_BYTES, AuditLog.DEFAULT_KEEP);
    }

    /**
     * Opens (creating if needed, owner-only) the state directory.
     *
     * @param initialPolicy the policy to start from when the directory holds none, or null for the defaults
     * @param auditMaxBytes the size at which the audit log rotates
     * @param auditKeep     how many rotated audit files are kept
     */
    public static StateDirectory open(Path dir, Path initialPolicy, long auditMaxBytes, int auditKeep) {
        if (Files.isSymbolicLink(dir) && !Files.exists(dir)) {
            throw new StateException("state directory " + dir + " is a symbolic link to " + linkTarget(dir)
                    + ", which does not exist: create that directory (owner-only, mode 700) or point the link at one");
        }
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
        FileSafety.checkDirectory(dir);
        return new StateDirectory(dir, initialPolicy, auditMaxBytes, auditKeep);
    }

    /** Where the link {@code dir} points, resolved against its directory, as the system follows it. */
    static Path linkTarget(Path dir) {
        try {
            Path target = Files.readSymbolicLink(dir);
            Path parent = dir.toAbsolutePath().getParent();
            return parent == null ? target : parent.resolve(target).normalize();
        } catch (IOException e) {
            throw new StateException("cannot read where the symbolic link " + dir + " points: " + e.getMessage(), e);
        }
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

    /**
     * Durably replaces the saved policy (temp file, fsync, atomic rename), unless a later version was saved
     * already: the admin API and the engine's automatic bans save from different threads, and the file must never
     * go back to an older version.
     */
    public synchronized void savePolicy(Policy policy) throws IOException {
        if (policy.version() < savedVersion) {
            return;
        }
        AtomicFiles.write(dir.resolve(POLICY), PolicyJson.mapper().writerWithDefaultPrettyPrinter()
                .writeValueAsBytes(policy));
        savedVersion = policy.version();
    }

    /** The newest policy version saved by this process. */
    private long savedVersion = Long.MIN_VALUE;

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

    /** Every token, named and with a role; changes made by the CLI meanwhile are seen at the next call. */
    public TokenStore tokens() {
        return tokens;
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
            // Owner-only from the moment the file exists: the token is never readable by others.
            String created = TokenStore.newSecret();
            AtomicFiles.write(file, (created + "\n").getBytes(StandardCharsets.UTF_8));
            return created;
        } catch (IOException e) {
            throw new StateException("cannot read or create the " + name + " " + file + ": " + e.getMessage(), e);
        }
    }

    private static boolean posix() {
        return AtomicFiles.posix();
    }
}
