package io.sluice.engine.policy;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What a {@link Ban} is matched against. */
public enum BanType {
    @JsonProperty("ip") IP,
    @JsonProperty("agent") AGENT,
    @JsonProperty("client") CLIENT
}
