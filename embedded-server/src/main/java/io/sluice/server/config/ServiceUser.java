package io.sluice.server.config;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The user {@code config check} judges the state directory for: the service's user, the one that runs the check
 * unless {@code --user} names another. A start refuses a state directory that is not its user's own or that others
 * may write (state.FileSafety), so that is what the check looks at, in the directory's owner and mode; for the user
 * running the check the system is asked too ({@code access(2)}: a read-only mount, an ACL).
 *
 * <p>Root may write anywhere, so a check run as root without {@code --user} cannot say what the service's user could
 * do: it says so, as a note, instead of finding every path writable. Group membership is not known here: where only a
 * directory's group would let the user in, that is a note too, never a yes.
 */
final class ServiceUser {
    private static final String NO_POSIX = "this file system has no POSIX owners and modes";
    private static final String AS_ROOT = "run as root, who may write anywhere, the check cannot tell whether the "
            + "service's user can use the state directory: not judged (add --user USER, the package's being sluice, "
            + "or run it as that user: sudo -u sluice sluice-server config check)";

    /** Who is judged; null when no one can be (root without --user). */
    private final String name;
    /** {@link #name} runs the check: the system can be asked on its behalf. */
    private final boolean runsTheCheck;
    private final List<String> notes = new ArrayList<>();

    private ServiceUser(String name, boolean runsTheCheck) {
        this.name = name;
        this.runsTheCheck = runsTheCheck;
    }

    /**
     * @param given  {@code --user}, or null
     * @param runner who runs the check ({@code user.name})
     * @param root   the check runs as root (uid 0)
     */
    static ServiceUser of(String given, String runner, boolean root) {
        if (given != null && !given.equals(runner)) {
            return new ServiceUser(given, false);
        }
        if (root && given == null) {
            return new ServiceUser(null, false);
        }
        return new ServiceUser(runner, true);
    }

    /** Who runs this process, and whether that is root. */
    static ServiceUser of(String given) {
        return of(given, System.getProperty("user.name"), runsAsRoot());
    }

    /** What could not be judged, to be said beside the verdict. */
    List<String> notes() {
        return List.copyOf(notes);
    }

    /** What is wrong with {@code dir} as this user's state directory (existing or to be made); empty when fine. */
    List<String> stateDirectory(Path dir) {
        List<String> problems = new ArrayList<>();
        if (Files.isSymbolicLink(dir) && !Files.exists(dir)) {
            problems.add("state directory " + dir + " is a symbolic link to something that does not exist: create "
                    + "that directory (owner-only, mode 700) or point the link at one");
            return problems;
        }
        if (Files.exists(dir)) {
            if (!Files.isDirectory(dir)) {
                problems.add("state directory " + dir + " is not a directory");
            } else if (name != null) {
                ownDirectory(dir, problems);
            } else {
                notes.add(AS_ROOT);
            }
            return problems;
        }
        Path parent = dir.toAbsolutePath().getParent();
        while (parent != null && !Files.exists(parent)) {
            parent = parent.getParent();
        }
        if (parent == null || !Files.isDirectory(parent)) {
            problems.add("state directory " + dir + " does not exist and cannot be created"
                    + (parent == null ? "" : " in " + parent));
        } else if (name != null) {
            creatable(dir, parent, problems);
        } else {
            notes.add(AS_ROOT);
        }
        return problems;
    }

    /** An existing state directory: the start's rules (its user's own, nobody else's to write) and write access. */
    private void ownDirectory(Path dir, List<String> problems) {
        PosixFileAttributes attributes = attributes(dir);
        if (attributes != null) {
            String owner = attributes.owner().getName();
            Set<PosixFilePermission> mode = attributes.permissions();
            if (!owner.equals(name)) {
                problems.add("state directory " + dir + " belongs to " + owner + ", not to " + name + ": the server, "
                        + "run as " + name + ", would refuse it (chown -R " + name + " " + dir + ")");
            } else if (!mode.contains(PosixFilePermission.OWNER_WRITE)
                    || !mode.contains(PosixFilePermission.OWNER_EXECUTE)) {
                problems.add("state directory " + dir + " is not writable by " + name + " (mode "
                        + PosixFilePermissions.toString(mode) + "): chmod 700 " + dir);
            }
            if (mode.contains(PosixFilePermission.GROUP_WRITE) || mode.contains(PosixFilePermission.OTHERS_WRITE)) {
                problems.add("state directory " + dir + " is writable by others (mode "
                        + PosixFilePermissions.toString(mode) + "): the server would refuse it (chmod 700 " + dir
                        + ")");
            }
        }
        if (runsTheCheck) {
            if (!Files.isWritable(dir)) {
                problems.add("state directory " + dir + " is not writable");
            }
        } else {
            reachable(dir.toAbsolutePath().getParent(), dir, problems);
        }
    }

    /** A state directory to be made in {@code parent}: the user must be able to write there. */
    private void creatable(Path dir, Path parent, List<String> problems) {
        if (runsTheCheck) {
            if (!Files.isWritable(parent)) {
                problems.add("state directory " + dir + " does not exist and cannot be created in " + parent);
            }
            return;
        }
        if (reachable(parent, dir, problems) && enters(parent, true, dir, problems) == Answer.NO) {
            problems.add("state directory " + dir + " does not exist and " + name + " cannot create it in " + parent
                    + " (create it: install -d -o " + name + " -m 700 " + dir + ")");
        }
    }

    /** Whether {@link #name} may pass through {@code dir} and every directory above it; false adds the problem. */
    private boolean reachable(Path dir, Path target, List<String> problems) {
        for (Path at = dir; at != null; at = at.getParent()) {
            if (enters(at, false, target, problems) == Answer.NO) {
                problems.add(name + " cannot reach " + target + ": " + at + " lets only its owner"
                        + " and group in (" + describe(at) + ")");
                return false;
            }
        }
        return true;
    }

    private enum Answer { YES, NO, UNKNOWN }

    /** Whether {@link #name} may enter {@code dir} (and, if {@code write}, add files to it), by its owner and mode. */
    private Answer enters(Path dir, boolean write, Path target, List<String> problems) {
        PosixFileAttributes attributes = attributes(dir);
        if (attributes == null) {
            return Answer.UNKNOWN;
        }
        Set<PosixFilePermission> mode = attributes.permissions();
        if (attributes.owner().getName().equals(name)) {
            return mode.contains(PosixFilePermission.OWNER_EXECUTE)
                    && (!write || mode.contains(PosixFilePermission.OWNER_WRITE)) ? Answer.YES : Answer.NO;
        }
        if (mode.contains(PosixFilePermission.OTHERS_EXECUTE)
                && (!write || mode.contains(PosixFilePermission.OTHERS_WRITE))) {
            return Answer.YES;
        }
        if (mode.contains(PosixFilePermission.GROUP_EXECUTE)
                && (!write || mode.contains(PosixFilePermission.GROUP_WRITE))) {
            notes.add("whether " + name + " can " + (write ? "create " + target + " in " : "reach " + target
                    + " through ") + dir + " depends on its being in the group " + attributes.group().getName()
                    + ", which the check cannot tell: not judged");
            return Answer.UNKNOWN;
        }
        return Answer.NO;
    }

    /** Reads owner and mode; null (and a note) where there are none, or they cannot be read. */
    private PosixFileAttributes attributes(Path path) {
        if (!FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            notes.add(NO_POSIX + ": whether " + name + " can use " + path + " is not judged");
            return null;
        }
        try {
            return Files.readAttributes(path, PosixFileAttributes.class);
        } catch (IOException e) {
            notes.add("cannot read the owner and mode of " + path + " (" + e.getMessage() + "): whether " + name
                    + " can use it is not judged");
            return null;
        }
    }

    private static String describe(Path dir) {
        try {
            PosixFileAttributes attributes = Files.readAttributes(dir, PosixFileAttributes.class);
            return "owner " + attributes.owner().getName() + ", group " + attributes.group().getName() + ", mode "
                    + PosixFilePermissions.toString(attributes.permissions());
        } catch (IOException | UnsupportedOperationException e) {
            return "mode unknown";
        }
    }

    /** Null when {@link #name} is a user of this machine, else the problem. */
    String unknownUser() {
        if (name == null || runsTheCheck) {
            return null;
        }
        try {
            FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName(name);
            return null;
        } catch (UserPrincipalNotFoundException e) {
            return "--user " + name + ": no such user on this machine";
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    private static boolean runsAsRoot() {
        try {
            return new com.sun.security.auth.module.UnixSystem().getUid() == 0;
        } catch (LinkageError | RuntimeException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }
}
