package io.sluice.engine;

/** Who a request comes from, as far as throttling is concerned (docs/architecture.md, "Request classes"). */
public enum RequestClass {
    /** A person's browser: user agent of a known browser and not a crawler. */
    BROWSER,
    /** A known web crawler from the maintained list, whose tag the policy maps to a crawler. */
    CRAWLER,
    /** Everything else: API clients, feed readers, HTTP libraries, monitors, scanners, no user agent. */
    BOT
}
