package io.sluice.server.front;

import java.nio.channels.ReadPendingException;
import org.eclipse.jetty.io.AbstractConnection;

/** Registering a lean-path connection for reading when two threads may both try: one registration is enough. */
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
