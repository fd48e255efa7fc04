package io.sluice.server.replay;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** Whether standard error is a terminal, for output that only makes sense to a person watching. */
final class Terminal {
    private Terminal() {
    }

    /**
     * On Linux, what file descriptor 2 points at; elsewhere (no {@code /proc}), whether the JVM has a console,
     * which is the nearest the JDK can tell.
     */
    static boolean isStandardError() {
        Path fd = Path.of("/proc/self/fd/2");
        if (Files.exists(fd, LinkOption.NOFOLLOW_LINKS)) {
            try {
                String target = Files.readSymbolicLink(fd).toString();
                return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
            } catch (IOException | UnsupportedOperationException e) {
                return false;
            }
        }
        return System.console() != null;
    }
}
