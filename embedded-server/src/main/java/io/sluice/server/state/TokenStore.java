package io.sluice.server.state;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.engine.policy.PolicyJson;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The bearer tokens: named, each with a role. {@code tokens.json} holds the tokens added with
 * {@code sluice-server token add} or the API, as SHA-256 hashes (the secret is shown once, when made, and
 * never stored); the files {@code admin-token} and {@code worker-token} of earlier versions keep working as
 * the tokens named {@code admin} and {@code worker}.
 *
 * <p>The server and the CLI may change the tokens at the same time: every change is a read-modify-write of
 * {@code tokens.json} under a file lock. The server notices a change made by the CLI at the next call
 * (each authentication compares the files' identity, modification and status-change times with those last
 * read), so a revoked token is refused at once, without a restart.
 *
 * <p>It fails closed: a token file the server cannot read or trust at that moment (damaged, another user's, open
 * to others, a link: a {@code tokens.json} a {@code sudo} left root's) never leaves it on the tokens it read before,
 * which may hold the one just revoked. Every token but the operator's own, {@code admin-token}'s, is refused until
 * the files can be read again, and the log says so at once, at {@code ERROR}. A command writes the files as the
 * directory's owner ({@link StateOwner}).
 */
public final class TokenStore {
    public static final String FILE = "tokens.json";
    public static final String ADMIN_FILE = "admin-token";
    public static final String WORKER_FILE = "worker-token";
    private static final String LOCK = "tokens.lock";
    /** The tokens of earlier versions: name to file. */
    private static final Map<String, String> LEGACY = Map.of("admin", ADMIN_FILE,
            "worker", WORKER_FILE);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final ObjectMapper JSON = PolicyJson.mapper();
    private static final SecureRandom RANDOM = new SecureRandom();
    /** One lock for every store of this JVM: a file lock is held per process, not per channel. */
    private static final Object JVM_LOCK = new Object();

    private static final System.Logger LOG = System.getLogger(TokenStore.class.getName());
    /** Where the file system has them: the status-change time, which a chown or chmod moves too. */
    private static final boolean UNIX_ATTRIBUTES = FileSystems.getDefault().supportedFileAttributeViews()
            .contains("unix");

    private final Path dir;
    private final InstantSource clock;
    private final StateOwner owner;
    private volatile Loaded loaded;

    /** A stored token: its name, role and hash, and where it comes from. */
    record Entry(String name, Role role, byte[] sha256, Instant createdAt, String file) {
    }

    /**
     * The tokens as last read, and the identity of the files they were read from.
     *
     * @param closed the files could not be read or trusted: {@code entries} is admin-token's alone, or empty
     */
    private record Loaded(List<Entry> entries, List<Object> stamps, boolean closed) {
    }

    /** The JSON form of {@code tokens.json}. */
    record TokenFile(List<StoredToken> tokens) {
        TokenFile {
            tokens = tokens == null ? List.of() : List.copyOf(tokens);
        }
    }

    /** One entry of {@code tokens.json}. */
    record StoredToken(String name, Role role, String sha256, Instant createdAt) {
    }

    /** What {@code token list} and {@code GET /api/v1/tokens} show: never the secret. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TokenInfo(String name, Role role, Instant createdAt, String file) {
    }

    /** An authenticated caller's token. */
    public record Grant(String name, Role role) {
    }

    private TokenStore(Path dir, InstantSource clock, StateOwner owner) {
        this.dir = dir;
        this.clock = clock;
        this.owner = owner;
        this.loaded = load();
    }

    /** The tokens of a state directory, as its server; a damaged {@code tokens.json} is reported here. */
    public static TokenStore open(Path dir, InstantSource clock) {
        return new TokenStore(dir, clock, StateOwner.PROCESS);
    }

    /** The tokens of a state directory for a command that writes its files as {@code owner}. */
    public static TokenStore open(Path dir, InstantSource clock, StateOwner owner) {
        return new TokenStore(dir, clock, owner);
    }

    /** Checks the owner and mode of every token file (at start: a token others can read is refused). */
    void checkFiles() {
        for (String name : List.of(FILE, ADMIN_FILE, WORKER_FILE)) {
            FileSafety.checkSecret(dir.resolve(name), "token file", owner.name());
        }
    }

    /**
     * The token's name and role, if {@code presented} is a live token. Every known token is compared, in
     * constant time, whatever matches first, so the time taken tells nothing about which one came close.
     */
    public Optional<Grant> authenticate(String presented) {
        if (presented == null || presented.isEmpty()) {
            return Optional.empty();
        }
        byte[] hash = sha256(presented);
        Entry match = null;
        for (Entry entry : current().entries()) {
            if (MessageDigest.isEqual(hash, entry.sha256()) && match == null) {
                match = entry;
            }
        }
        return match == null ? Optional.empty() : Optional.of(new Grant(match.name(), match.role()));
    }

    public List<TokenInfo> list() {
        return current().entries().stream().map(e -> new TokenInfo(e.name(), e.role(), e.createdAt(), e.file()))
                .toList();
    }

    /**
     * Adds a token and returns its secret (shown once; only its hash is kept).
     *
     * @throws IllegalArgumentException for a bad or taken name
     */
    public String add(String name, Role role) throws IOException {
        Objects.requireNonNull(role, "role");
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a token name is 1-64 letters, digits, '.', '_' or '-', starting with "
                    + "a letter or digit, not '" + name + "'");
        }
        String secret = newSecret();
        locked(() -> {
            TokenFile file = readFile();
            if (LEGACY.containsKey(name) || file.tokens().stream().anyMatch(t -> t.name().equals(name))) {
                throw new IllegalArgumentException("a token named '" + name + "' exists already; revoke it first");
            }
            List<StoredToken> tokens = new ArrayList<>(file.tokens());
            tokens.add(new StoredToken(name, role, HexFormat.of().formatHex(sha256(secret)), clock.instant()));
            AtomicFiles.write(dir.resolve(FILE), JSON.writerWithDefaultPrettyPrinter()
                    .writeValueAsBytes(new TokenFile(tokens)), owner);
        });
        return secret;
    }

    /**
     * Revokes a token: refused from the next call on. The tokens named {@code admin} and {@code worker} are
     * the files of earlier versions, which are deleted (a new one is made at the next start).
     *
     * @return false if there was no such token
     */
    public boolean revoke(String name) throws IOException {
        boolean[] found = new boolean[1];
        locked(() -> {
            if (LEGACY.containsKey(name)) {
                found[0] = Files.deleteIfExists(dir.resolve(LEGACY.get(name)));
                AtomicFiles.syncDirectory(dir);
                return;
            }
            TokenFile file = readFile();
            List<StoredToken> kept = file.tokens().stream().filter(t -> !t.name().equals(name)).toList();
            found[0] = kept.size() < file.tokens().size();
            if (found[0]) {
                AtomicFiles.write(dir.resolve(FILE), JSON.writerWithDefaultPrettyPrinter()
                        .writeValueAsBytes(new TokenFile(kept)), owner);
            }
        });
        return found[0];
    }

    /** A new secret: 256 random bits, URL-safe. */
    static String newSecret() {
        byte[] random = new byte[32];
        RANDOM.nextBytes(random);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    private interface IoAction {
        void run() throws IOException;
    }

    private void locked(IoAction action) throws IOException {
        synchronized (JVM_LOCK) {
            try (FileChannel channel = FileChannel.open(dir.resolve(LOCK), Set.of(StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), AtomicFiles.ownerOnly())) {
                owner.adopt(dir.resolve(LOCK));
                FileLock lock = channel.lock();
                try {
                    action.run();
                } finally {
                    lock.release();
                }
            }
            loaded = load();
        }
    }

    private Loaded current() {
        Loaded now = loaded;
        if (!now.stamps().equals(stamps())) {
            synchronized (JVM_LOCK) {
                now = loaded;
                List<Object> stamps = stamps();
                if (!now.stamps().equals(stamps)) {
                    now = reload(now, stamps);
                    loaded = now;
                }
            }
        }
        return now;
    }

    /** The token files changed since last read: read them again, or fail closed and say so. */
    private Loaded reload(Loaded before, List<Object> stamps) {
        try {
            checkFiles();
            Loaded read = load();
            if (before.closed()) {
                LOG.log(System.Logger.Level.WARNING, "the token files in " + dir + " can be read again: "
                        + read.entries().size() + " tokens live");
            }
            return read;
        } catch (StateException e) {
            return closed(stamps, e);
        }
    }

    /**
     * What the server trusts while a token file cannot be read or trusted: the operator's own {@code admin-token},
     * if that one can be, and nothing else.
     */
    private Loaded closed(List<Object> stamps, StateException cause) {
        List<Entry> entries = new ArrayList<>(1);
        String refused;
        try {
            FileSafety.checkSecret(dir.resolve(ADMIN_FILE), "token file", owner.name());
            legacy(ADMIN_FILE, "admin", Role.ADMIN, entries);
            refused = entries.isEmpty() ? "every token is refused (there is no admin-token either)"
                    : "every token but admin-token's (the operator's own) is refused";
        } catch (StateException e) {
            entries.clear();
            refused = "every token is refused, admin-token's too (" + e.getMessage() + ")";
        }
        LOG.log(System.Logger.Level.ERROR, cause.getMessage() + "; " + refused + " until the token files can be "
                + "read again (a revoked token must never stay valid)");
        return new Loaded(List.copyOf(entries), stamps, true);
    }

    /**
     * What identifies the current content, owner and mode of each token file: file key, size, modification and (where
     * the file system has it) status-change time.
     */
    private List<Object> stamps() {
        List<Object> stamps = new ArrayList<>(3);
        for (String name : List.of(FILE, ADMIN_FILE, WORKER_FILE)) {
            Path file = dir.resolve(name);
            try {
                if (UNIX_ATTRIBUTES) {
                    stamps.add(Files.readAttributes(file, "unix:dev,ino,size,lastModifiedTime,ctime",
                            LinkOption.NOFOLLOW_LINKS));
                } else {
                    BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class,
                            LinkOption.NOFOLLOW_LINKS);
                    stamps.add(List.of(String.valueOf(attributes.fileKey()), attributes.size(),
                            attributes.lastModifiedTime()));
                }
            } catch (IOException e) {
                stamps.add("absent");
            }
        }
        return stamps;
    }

    private Loaded load() {
        List<Object> stamps = stamps();
        List<Entry> entries = new ArrayList<>();
        legacy(ADMIN_FILE, "admin", Role.ADMIN, entries);
        legacy(WORKER_FILE, "worker", Role.WORKER, entries);
        for (StoredToken token : readFile().tokens()) {
            if (token.name() == null || token.role() == null || token.sha256() == null
                    || token.sha256().length() != 64) {
                throw new StateException("corrupt token file " + dir.resolve(FILE) + ": every token needs a name, "
                        + "a role and a sha256 of 64 hex digits");
            }
            entries.add(new Entry(token.name(), token.role(), HexFormat.of().parseHex(token.sha256()),
                    token.createdAt(), null));
        }
        return new Loaded(List.copyOf(entries), stamps, false);
    }

    private void legacy(String file, String name, Role role, List<Entry> entries) {
        Path path = dir.resolve(file);
        try {
            String secret = Files.readString(path, StandardCharsets.UTF_8).trim();
            if (!secret.isEmpty()) {
                entries.add(new Entry(name, role, sha256(secret), null, file));
            }
        } catch (NoSuchFileException e) {
            // Revoked, or not made yet.
        } catch (IOException e) {
            throw new StateException("cannot read token file " + path + ": " + e.getMessage(), e);
        }
    }

    private TokenFile readFile() {
        Path path = dir.resolve(FILE);
        try {
            TokenFile file = JSON.readValue(Files.readString(path, StandardCharsets.UTF_8), TokenFile.class);
            return file == null ? new TokenFile(List.of()) : file;
        } catch (NoSuchFileException e) {
            return new TokenFile(List.of());
        } catch (IOException | IllegalArgumentException e) {
            throw new StateException("corrupt token file " + path + ": " + e.getMessage(), e);
        }
    }

    static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
