package io.sluice.server.admin;

import io.sluice.server.state.AuditEntry;
import io.sluice.server.state.AuditLog;
import io.sluice.server.state.Role;
import java.util.List;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * {@code GET /api/v1/audit?limit=N&before=SEQ}: operator actions, newest first, paged by {@code seq} across
 * the rotated files; a page with older entries past it carries {@code Link: <...before=SEQ>; rel="next"}.
 *
 * <p>A page is bounded twice, so that no call holds more than a few megabytes whatever the log holds: {@code limit}
 * is 1 to {@value #MAX_LIMIT} (outside that, a 400 naming it: a client asking for more would otherwise believe it
 * had everything), and a page ends early once its entries reach {@value #PAGE_CHARS} characters (an entry holds a
 * whole policy before and after), with the {@code next} link to go on.
 */
final class AuditResource extends Resource {
    static final int MAX_LIMIT = 1_000;
    static final int PAGE_CHARS = 4 << 20;
    private final AuditLog audit;

    AuditResource(AuditLog audit) {
        super(Access.of("GET", Role.READ));
        this.audit = audit;
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        Fields query = Request.extractQueryParameters(request);
        int limit = (int) number(query, "limit", 100, MAX_LIMIT);
        long before = number(query, "before", Long.MAX_VALUE, Long.MAX_VALUE);
        AuditLog.Page page = audit.page(limit, before, PAGE_CHARS);
        List<AuditEntry> entries = page.entries();
        if (page.more()) {
            response.getHeaders().put(HttpHeader.LINK, "</api/v1/audit?limit=" + limit + "&before="
                    + entries.get(entries.size() - 1).seq() + ">; rel=\"next\"");
        }
        return ApiMessages.json(response, callback, 200, entries);
    }

    /** A whole number from 1 to {@code max}, or {@code absent}; anything else is a 400 naming the parameter. */
    private static long number(Fields query, String name, long absent, long max) {
        String value = query.getValue(name);
        if (value == null) {
            return absent;
        }
        long number;
        try {
            number = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw ApiError.field(name, "must be a whole number");
        }
        if (number < 1 || number > max) {
            throw ApiError.field(name, "must be from 1 to " + max + ", not " + number);
        }
        return number;
    }
}
