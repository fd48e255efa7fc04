package io.sluice.engine.policy;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * An escalation rule, like a fail2ban jail: a client (or an address) refused {@code refusals} times within
 * {@code withinSeconds} is banned for {@code banSeconds}; each further offence multiplies the ban by
 * {@code growth}, up to {@code maxBanSeconds}. The ban is an ordinary {@link Ban} (author {@code sluice}, this rule
 * in its reason, an expiry). Refusals that are not the client's doing (pause, load, the any-crawler gap) and
 * bans themselves do not count.
 *
 * @param scope         what is counted and banned
 * @param refusals      refusals that make an offence
 * @param withinSeconds ... within this many seconds
 * @param banSeconds    the first ban's length
 * @param growth        factor applied to the ban for each earlier offence still remembered
 * @param maxBanSeconds the longest ban
 */
public record Escalation(Scope scope, int refusals, int withinSeconds, int banSeconds, double growth,
                         int maxBanSeconds) {

    /** Who an escalation rule counts and bans. */
    public enum Scope {
        /** The client (address and user agent): a {@code client} ban. */
        @JsonProperty("client") CLIENT,
        /** The address aggregate (an IPv4 address, an IPv6 /64 by default): an {@code ip} ban of the prefix. */
        @JsonProperty("address") ADDRESS
    }

    /** The ban length for the {@code offence}-th offence (1 for the first). */
    public long banSecondsFor(int offence) {
        double seconds = banSeconds * Math.pow(growth, Math.max(0, offence - 1));
        return (long) Math.min(maxBanSeconds, Math.max(banSeconds, seconds));
    }
}
