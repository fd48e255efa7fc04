package io.sluice.engine.whatif;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code sluice-server replay} reads back from an access log, request by request, for the server's tests of the
 * lines it writes: the engine's own reader (package-private there, reached from this package of the tests).
 */
public final class ReplayedLines {
    private ReplayedLines() {
    }

    /** One request as replay reads it; {@code decision} is the {@code sluice=} field, or null. */
    public record Request(String ip, String method, String path, String query, String userAgent, String decision) {
    }

    /** Every request of {@code log}, in order; a line replay cannot read is left out (and counted in skipped). */
    public static List<Request> read(Path log) throws IOException {
        List<Request> requests = new ArrayList<>();
        try (AccessLogReader reader = new AccessLogReader(log)) {
            for (LogEntry entry = reader.next(); entry != null; entry = reader.next()) {
                requests.add(new Request(entry.ip(), entry.method(), entry.path(), entry.query(), entry.userAgent(),
                        entry.logged() == null ? null : entry.logged().toString()));
            }
        }
        return requests;
    }
}
