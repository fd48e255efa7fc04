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

    /**
     * The state directory: ours, and nobody else may add, replace or remove files in it. Given as a symbolic link (to
     * another disk), the directory it points to is the one checked, and named.
     */
    static void checkDirectory(Path dir) {
        Path real = dir;
        String named = "state directory " + dir;
        if (Files.isSymbolicLink(dir)) {
            try {
                real = dir.toRealPath();
            } catch (IOException e) {
                throw new StateException("cannot follow the state directory's link " + dir + ": " + e.getMessage(), e);
            }
            named += " (a link to " + real + ")";
        }
        PosixFileAttributes attributes = attributes(real);
        if (attributes == null) {
            return;
        }
        checkOwner(named, attributes, StateOwner.runningUser());
        if (attributes.permissions().stream().anyMatch(OTHERS_WRITE::contains)) {
            throw new StateException(named + " is writable by others (mode "
                    + PosixFilePermissions.toString(attributes.permissions()) + "): run chmod 700 " + real);
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
        checkOwner(what + " " + file, attributes, user);
        if (attributes.permissions().stream().anyMatch(OTHERS::contains)) {
            throw new StateException(what + " " + file + " is readable or writable by others (mode "
                    + PosixFilePermissions.toString(attributes.permissions()) + "): run chmod 600 " + file
                    + ", and if others may have read it, revoke it and make a new one");
        }
    }

    /**
     * @param named what it is and where, as a message names it
     * @param user  who must own it (null: any owner)
     */
    private static void checkOwner(String named, PosixFileAttributes attributes, String user) {
        String owner = attributes.owner().getName();
        if (user != null && !owner.equals(user)) {
            throw new StateException(named + " belongs to " + owner + ", not to " + user + " who runs Sluice");
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
