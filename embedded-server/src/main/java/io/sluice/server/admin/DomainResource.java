package io.sluice.server.admin;

import io.sluice.engine.governor.CrawlGovernor;
import io.sluice.engine.governor.DomainNames;
import io.sluice.engine.governor.DomainView;
import io.sluice.server.state.Role;
import java.util.Optional;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** {@code GET /api/v1/domains/{domain}}: one domain as the crawl governor sees it. */
final class DomainResource extends Resource {
    private final CrawlGovernor governor;

    DomainResource(CrawlGovernor governor) {
        super(Access.of("GET", Role.READ));
        this.governor = governor;
    }

    @Override
    protected boolean serve(String method, Request request, Response response, Callback callback) throws Exception {
        String domain = pathParameter(request, "domain");
        Optional<DomainView> view = governor.domain(checked(domain));
        return view.isPresent() ? ApiMessages.json(response, callback, 200, view.get())
                : ApiMessages.error(response, callback, 404, "the governor has no state for " + domain);
    }

    /** The domain's normal form; a name that is none is a 400 on {@code domain}, and changes nothing. */
    static String checked(String domain) {
        try {
            return DomainNames.normalise(domain);
        } catch (IllegalArgumentException e) {
            throw ApiError.field("domain", e.getMessage());
        }
    }
}
