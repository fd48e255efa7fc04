package io.sluice.server.state;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.UserPrincipal;

/**
 * Whose the files written in a state directory are. The server writes its own directory as itself ({@link #PROCESS}).
 * A command run on a service's directory ({@code sluice-server token revoke}) must leave every file it writes the
 * service's: a {@code tokens.json} left root's by {@code sudo} is one the service can no longer read (issue 50: the
 * revoked token stayed valid). So a command run by the directory's owner writes as itself; run as root, every file it
 * makes or opens for writing is given to the directory's owner and group before it is put in place; run by anyone
 * else, it is refused before it writes anything.
 */
public final class StateOwner {
    /** The files as this process makes them: the server's own directory, a command run by its owner. */
    public static final StateOwner PROCESS = new StateOwner(null, null, null);
    private static final String ROOT = "root";

    private final String name;
    private final UserPrincipal user;
    private final GroupPrincipal group;

    private StateOwner(String name, UserPrincipal user, GroupPrincipal group) {
        this.name = name;
        this.user = user;
        this.group = group;
    }

    /**
     * Who a command that changes {@code dir} writes as (the user running it is {@code user.name}).
     *
     * @param command what to tell another user to run instead, e.g. {@code token revoke leaked}
     * @throws StateException when that user neither owns {@code dir} nor is root: the files would be theirs
     */
    public static StateOwner forCommand(Path dir, String command) {
        if (!AtomicFiles.posix()) {
            return PROCESS;
        }
        PosixFileAttributes attributes;
        try {
            attributes = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new StateException("cannot read the owner of the state directory " + dir + ": " + e.getMessage(),
                    e);
        }
        String owner = attributes.owner().getName();
        String running = runningUser();
        if (running == null || owner.equals(running)) {
            return PROCESS;
        }
        if (!ROOT.equals(running)) {
            throw new StateException("the state directory " + dir + " belongs to " + owner + ", not to " + running
                    + ": run the command as its owner, so the service can still read what it writes (sudo -u " + owner
                    + " sluice-server " + command + " --state " + dir + ")");
        }
        return new StateOwner(owner, attributes.owner(), attributes.group());
    }

    /** The user whose files the state's must be: the directory's owner for a command run as root, else this one's. */
    String name() {
        return name != null ? name : runningUser();
    }

    /** Gives {@code file} (written by this process) to the state's owner, if it is not the process's. */
    public void adopt(Path file) throws IOException {
        if (user == null) {
            return;
        }
        PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS);
        PosixFileAttributes now = view.readAttributes();
        if (!now.owner().equals(user)) {
            view.setOwner(user);
        }
        if (!now.group().equals(group)) {
            view.setGroup(group);
        }
    }

    /** The user running this process, as the JDK knows it; null where it does not. */
    static String runningUser() {
        String user = System.getProperty("user.name");
        return user == null || user.isBlank() || "?".equals(user) ? null : user;
    }
}
