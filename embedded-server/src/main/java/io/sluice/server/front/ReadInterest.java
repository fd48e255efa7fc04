package io.sluice.server.front;

import java.nio.channels.ReadPendingException;
import org.eclipse.jetty.io.AbstractConnection;

/**
 * Registering a lean-path connection for reading once: a registration already made (by an earlier pass of its loop, or
 * by another thread meanwhile) is enough, where Jetty would throw for a second one.
 */
final class ReadInterest {
    private ReadInterest() {
    }

    /** Registers {@code connection} for reading unless it already is, or another thread registers it meanwhile. */
    static void ensure(AbstractConnection connection) {
        if (!connection.isFillInterested()) {
            try {
                connection.fillInterested();
            } catch (ReadPendingException alreadyInterested) {
                // Registered meanwhile by the other caller: that registration serves both.
            }
        }
    }
}
