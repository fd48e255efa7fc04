package io.sluice.server.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Checks made at start on the state directory and the files that hold secrets: owned by the user running
 * Sluice, not a link, and not open to others. A file someone else can read is a token someone else has;
 * refusing to start is the only answer that does not leave it so.
 */
public final class FileSafety {
    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(
            PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);
    private static final Set<PosixFilePermission> OTHERS_WRITE = EnumSet.of(
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

    private FileSafety() {
    }

    /** The state directory: ours, and nobody else may add, replace or remove files in it. */
    static void checkDirectory(Path dir) {
        PosixFileAttributes attributes = attributes(dir);
        if (attributes == null) {
            return;
        }
        checkOwner(dir, attributes, "state directory", StateOwner.runningUser());
        if (attributes.permissions().stream().anyMatch(OTHERS_WRITE::contains)) {
            throw new StateException("state directory " + dir + " is writable by others (mode "
                    + PosixFilePermissions.toString(attributes.permissions()) + "): run chmod 700 " + dir);
        }
    }

    /** A file holding a secret (a token, a private key): ours, a regular file, owner-only. */
    public static void checkSecret(Path file, String what) {
        checkSecret(file, what, StateOwner.runningUser());
    }

    /** {@link #checkSecret(Path, String)}, owned by {@code user} (null: any owner). */
    static void checkSecret(Path file, String what, String user) {
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (Files.isSymbolicLink(file)) {
            throw new StateException(what + " " + file + " is a symbolic link; Sluice reads secrets only from "
                    + "regular files in its state directory");
        }
        PosixFileAttributes attributes = attributes(file);
        if (attributes == null) {
            return;
        }
        checkOwner(file, attributes, what, user);
        if (attributes.permissions().stream().anyMatch(OTHERS::contains)) {
            throw new StateException(what + " " + file + " is readable or writable by others (mode "
                    + PosixFilePermissions.toString(attributes.permissions()) + "): run chmod 600 " + file
                    + ", and if others may have read it, revoke it and make a new one");
        }
    }

    private static void checkOwner(Path path, PosixFileAttributes attributes, String what, String user) {
        String owner = attributes.owner().getName();
        if (user != null && !owner.equals(user)) {
            throw new StateException(what + " " + path + " belongs to " + owner + ", not to " + user
                    + " who runs Sluice");
        }
    }

    private static PosixFileAttributes attributes(Path path) {
        if (!AtomicFiles.posix()) {
            return null;
        }
        try {
            return Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new StateException("cannot read the owner and mode of " + path + ": " + e.getMessage(), e);
        }
    }
}
