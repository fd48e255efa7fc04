package io.sluice.server.state;

import io.sluice.engine.check.PassKey;
import io.sluice.engine.check.PassKeyRing;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The keys that sign browser passes and proof-of-work challenges (issue 46): {@code browser-pass.key} in the
 * state directory, made at the first start, owner-only (0600) like the token files, replaced whole and atomically
 * ({@link AtomicFiles}). A text file of {@code name=value} lines:
 *
 * <pre>
 * current=BASE64 (32 bytes)
 * previous=BASE64                                  (after a rotation)
 * previous-accepted-until=2026-11-29T10:00:00Z      (after a rotation: when the previous key's passes are refused)
 * </pre>
 *
 * <p>{@code sluice-server pass-key rotate} makes a new current key; the current one becomes the previous, still
 * accepted for one pass lifetime so that no pass made before the rotation is refused before it expires. A running
 * server reads the file again ({@link #load}) when it changes. A file that cannot be read, is damaged, or is open
 * to others is a {@link StateException} naming it: never a new key made in silence, which would log every visitor
 * out and hide whatever happened to the file.
 */
public final class PassKeyFile {
    public static final String FILE = "browser-pass.key";
    /** The lock file {@link #rotate} takes beside it. */
    public static final String LOCK = "browser-pass.lock";
    private static final String CURRENT = "current";
    private static final String PREVIOUS = "previous";
    private static final String UNTIL = "previous-accepted-until";
    private static final List<String> NAMES = List.of(CURRENT, PREVIOUS, UNTIL);
    /** A whole file is three lines of about 60 characters; a larger one is not ours. */
    private static final long MAX_BYTES = 4096;
    /** One lock for every caller of this JVM: a file lock is held per process, not per channel. */
    private static final Object JVM_LOCK = new Object();

    private PassKeyFile() {
    }

    /**
     * The key ring of the state directory, made (one new key) when it has none yet.
     *
     * @throws StateException when the file cannot be read or written, is damaged, or is open to others
     */
    public static PassKeyRing loadOrCreate(Path stateDir, SecureRandom random) {
        return locked(stateDir, () -> {
            Path file = stateDir.resolve(FILE);
            if (Files.exists(file, LinkOption.NOFOLLOW_LINKS) || Files.isSymbolicLink(file)) {
                return load(stateDir);
            }
            PassKeyRing ring = PassKeyRing.of(PassKey.random(random));
            write(file, ring);
            return ring;
        });
    }

    /**
     * The key ring of the state directory, as the file says now (a running server calls this when the file
     * changes).
     *
     * @throws StateException when there is no file, or it cannot be read, is damaged, or is open to others
     */
    public static PassKeyRing load(Path stateDir) {
        Path file = stateDir.resolve(FILE);
        FileSafety.checkSecret(file, "browser pass key file");
        String text;
        try {
            if (Files.size(file) > MAX_BYTES) {
                throw corrupt(file, "larger than " + MAX_BYTES + " bytes");
            }
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new StateException("no browser pass key file " + file + "; a server makes it at its first start",
                    e);
        } catch (IOException e) {
            throw new StateException("cannot read browser pass key file " + file + ": " + e.getMessage(), e);
        }
        return parse(file, text);
    }

    /**
     * Rotates the keys: a new current key; the current one becomes the previous, accepted until
     * {@code nowMillis + passTtlMillis}; the previous one is retired.
     *
     * @return the new ring, as written
     * @throws StateException when there is no key file (or it is damaged, or cannot be written)
     */
    public static PassKeyRing rotate(Path stateDir, long nowMillis, long passTtlMillis, SecureRandom random) {
        if (passTtlMillis < 0) {
            throw new IllegalArgumentException("a pass lifetime is not negative: " + passTtlMillis);
        }
        return locked(stateDir, () -> {
            PassKeyRing ring = load(stateDir);
            PassKey next = PassKey.random(random);
            while (next.id() == ring.current().id()) {
                next = PassKey.random(random); // one chance in four billion
            }
            PassKeyRing rotated = ring.rotated(next, nowMillis, passTtlMillis);
            write(stateDir.resolve(FILE), rotated);
            return rotated;
        });
    }

    /**
     * Writes {@code next} if the file still holds {@code expected} (or, with {@code expected} null, if there is no
     * file or it cannot be parsed): a cluster node adopting the cluster's ring never overwrites a rotation an
     * operator made meanwhile with {@code sluice-server pass-key rotate}.
     *
     * @return whether it was written
     * @throws StateException when the file cannot be written, or is open to others
     */
    public static boolean replace(Path stateDir, PassKeyRing expected, PassKeyRing next) {
        boolean[] written = {false};
        locked(stateDir, () -> {
            PassKeyRing now;
            try {
                now = load(stateDir);
            } catch (StateException unreadable) {
                now = null;
            }
            if (Objects.equals(now, expected)) {
                write(stateDir.resolve(FILE), next);
                written[0] = true;
            }
            return next;
        });
        return written[0];
    }

    /** The file's text for a ring; the same ring always gives the same text. */
    public static String format(PassKeyRing ring) {
        Base64.Encoder base64 = Base64.getEncoder();
        StringBuilder text = new StringBuilder();
        text.append("# Sluice browser pass keys: secret, owner-only. Rotate with: sluice-server pass-key rotate\n");
        text.append(CURRENT).append('=').append(base64.encodeToString(ring.current().secret())).append('\n');
        if (ring.previous() != null) {
            text.append(PREVIOUS).append('=').append(base64.encodeToString(ring.previous().secret())).append('\n');
            text.append(UNTIL).append('=').append(Instant.ofEpochMilli(ring.previousAcceptedUntilMillis()))
                    .append('\n');
        }
        return text.toString();
    }

    static PassKeyRing parse(Path file, String text) {
        try {
            return parse(text);
        } catch (IllegalArgumentException e) {
            throw corrupt(file, e.getMessage());
        }
    }

    /**
     * A ring from the text {@link #format} writes (a cluster's ring travels in this form through Redis).
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    public static PassKeyRing parse(String text) {
        if (text.length() > MAX_BYTES) {
            throw new IllegalArgumentException("larger than " + MAX_BYTES + " characters");
        }
        Map<String, String> values = new LinkedHashMap<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int equals = line.indexOf('=');
            String name = equals < 0 ? line : line.substring(0, equals).strip();
            if (equals < 0 || !NAMES.contains(name)) {
                throw new IllegalArgumentException("line " + (i + 1) + " is not one of " + String.join("=, ", NAMES)
                        + "=");
            }
            if (values.put(name, line.substring(equals + 1).strip()) != null) {
                throw new IllegalArgumentException(name + " is given twice");
            }
        }
        if (!values.containsKey(CURRENT)) {
            throw new IllegalArgumentException("no current key");
        }
        if (values.containsKey(PREVIOUS) != values.containsKey(UNTIL)) {
            throw new IllegalArgumentException(PREVIOUS + " and " + UNTIL + " go together");
        }
        PassKey current = key(CURRENT, values.get(CURRENT));
        if (!values.containsKey(PREVIOUS)) {
            return PassKeyRing.of(current);
        }
        PassKey previous = key(PREVIOUS, values.get(PREVIOUS));
        long until;
        try {
            until = Instant.parse(values.get(UNTIL)).toEpochMilli();
        } catch (DateTimeParseException | ArithmeticException e) {
            throw new IllegalArgumentException(UNTIL + " is not an instant such as 2026-11-29T10:00:00Z");
        }
        return new PassKeyRing(current, previous, until);
    }

    private static PassKey key(String name, String value) {
        byte[] secret;
        try {
            secret = Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + " is not base64");
        }
        if (secret.length != PassKey.LENGTH) {
            throw new IllegalArgumentException(name + " has " + secret.length + " bytes, not " + PassKey.LENGTH);
        }
        return new PassKey(secret);
    }

    private static StateException corrupt(Path file, String what) {
        return new StateException("corrupt browser pass key file " + file + ": " + what + ". Restore it from a "
                + "backup; or delete it and a new key is made at the next start (every browser pass is then refused "
                + "and its holder checked again)");
    }

    private static void write(Path file, PassKeyRing ring) {
        try {
            AtomicFiles.write(file, format(ring).getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new StateException("cannot write browser pass key file " + file + ": " + e.getMessage(), e);
        }
    }

    private interface RingAction {
        PassKeyRing run();
    }

    /** Runs a read-modify-write under the key file's lock: a rotation and a first start never cross. */
    private static PassKeyRing locked(Path stateDir, RingAction action) {
        if (!Files.isDirectory(stateDir)) {
            throw new StateException("no state directory " + stateDir);
        }
        synchronized (JVM_LOCK) {
            try (FileChannel channel = FileChannel.open(stateDir.resolve(LOCK), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                FileLock lock = channel.lock();
                try {
                    return action.run();
                } finally {
                    lock.release();
                }
            } catch (IOException e) {
                throw new StateException("cannot lock " + stateDir.resolve(LOCK) + ": " + e.getMessage(), e);
            }
        }
    }
}
