package io.sluice.engine;

/**
 * The client a decision is about: the pair (IP, user agent) and what the engine made of it.
 *
 * @param ip           the resolved client IP (peer, or what a trusted proxy reported)
 * @param userAgent    the user agent, empty string when absent
 * @param requestClass the class the request was put in
 * @param crawlerName  the matched crawler-list entry (e.g. "Googlebot"), or null
 * @param allowListed  true when an allow-list entry exempted the client from rules 3-7
 * @param pass         what the browser check made of the request: {@link Pass#UNCHECKED} for every class but a
 *                     browser claim the check looked at
 */
public record ClientInfo(
        String ip,
        String userAgent,
        RequestClass requestClass,
        String crawlerName,
        boolean allowListed,
        Pass pass) {

    /** What the browser check made of a request. */
    public enum Pass {
        /** Not looked at (not a browser claim, the check off or not asking): a browser is served whatever the load. */
        UNCHECKED,
        /** A valid pass earned by the proof-of-work: served whatever the load. */
        STRONG,
        /** A valid pass earned by the no-JavaScript path: served after crawlers and bots (load deferral). */
        WEAK,
        /** No valid pass while the check was asking: not a page, so not challenged, but deferred under load. */
        MISSING
    }

    public ClientInfo {
        pass = pass == null ? Pass.UNCHECKED : pass;
    }

    /** A client the browser check did not look at. */
    public ClientInfo(String ip, String userAgent, RequestClass requestClass, String crawlerName,
                      boolean allowListed) {
        this(ip, userAgent, requestClass, crawlerName, allowListed, Pass.UNCHECKED);
    }

    /** The same client as the browser check saw it. */
    public ClientInfo withPass(Pass value) {
        return new ClientInfo(ip, userAgent, requestClass, crawlerName, allowListed, value);
    }

    /** Whether load deferral (rule 6) applies: to crawlers and bots, and to browser claims without a strong pass. */
    public boolean deferredByLoad() {
        return requestClass != RequestClass.BROWSER || pass == Pass.WEAK || pass == Pass.MISSING;
    }
}
