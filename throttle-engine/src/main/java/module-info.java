/**
 * The throttle engine: classification, rules, client state, decisions, telemetry, the policy model, the crawl
 * governor and what-if. It exports its API packages only; {@code io.sluice.engine.internal} (client state, the
 * compiled policy, rule state) stays inside, so nothing built on the engine can come to depend on it
 * (docs/architecture.md, "Modules and layers"). {@code io.sluice.engine.store} is the seam a shared per-client
 * store implements (cluster mode's, on Redis, in the server). The JSON value types are opened to Jackson, which reads and
 * writes them by reflection.
 */
module io.sluice.engine {
    requires com.fasterxml.jackson.annotation;
    requires transitive com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.datatype.jsr310;
    requires com.github.benmanes.caffeine;
    // the system resolver of crawler verification asks DNS through the JDK's naming provider (SystemDns)
    requires java.naming;
    requires org.jctools.core;
    // an operator's GeoLite2-ASN file is walked once at load (net.MaxMindAsn)
    requires com.maxmind.db;
    // Neither jar names its module: the names derived from their files (re2j-1.8.jar, HdrHistogram-2.2.2.jar).
    requires re2j;
    requires HdrHistogram;

    exports io.sluice.engine;
    exports io.sluice.engine.check;
    exports io.sluice.engine.classify;
    exports io.sluice.engine.governor;
    exports io.sluice.engine.net;
    exports io.sluice.engine.policy;
    exports io.sluice.engine.robots;
    exports io.sluice.engine.store;
    exports io.sluice.engine.telemetry;
    exports io.sluice.engine.whatif;

    opens io.sluice.engine to com.fasterxml.jackson.databind;
    opens io.sluice.engine.classify to com.fasterxml.jackson.databind;
    opens io.sluice.engine.governor to com.fasterxml.jackson.databind;
    opens io.sluice.engine.policy to com.fasterxml.jackson.databind;
    opens io.sluice.engine.telemetry to com.fasterxml.jackson.databind;
    opens io.sluice.engine.whatif to com.fasterxml.jackson.databind;
}
