package io.sluice.server.admin;

import io.sluice.server.state.AuditEntry;
import io.sluice.server.state.AuditLog;
import java.util.List;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * {@code GET /api/v1/audit?limit=N&before=SEQ}: operator actions, newest first, paged by {@code seq} across
 * the rotated files; a full page carries {@code Link: <...before=SEQ>; rel="next"}.
 */
final class AuditResource extends Resource {
    private final AuditLog audit;

    AuditResource(AuditLog audit) {
        super("GET");
        this.audit = audit;
    }

    @Override
    boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        Fields query = Request.extractQueryParameters(request);
        int limit = (int) number(query, "limit", 100, 1, 10_000);
        long before = number(query, "before", Long.MAX_VALUE, 1, Long.MAX_VALUE);
        List<AuditEntry> page = audit.page(limit, before);
        if (page.size() == limit && page.get(page.size() - 1).seq() > 1) {
            response.getHeaders().put(HttpHeader.LINK, "</api/v1/audit?limit=" + limit + "&before="
                    + page.get(page.size() - 1).seq() + ">; rel=\"next\"");
        }
        return ApiMessages.json(response, callback, 200, page);
    }

    private static long number(Fields query, String name, long absent, long min, long max) {
        String value = query.getValue(name);
        if (value == null) {
            return absent;
        }
        try {
            return Math.max(min, Math.min(max, Long.parseLong(value)));
        } catch (NumberFormatException e) {
            throw ApiError.field(name, "must be a number");
        }
    }
}
