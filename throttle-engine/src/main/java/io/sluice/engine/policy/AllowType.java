package io.sluice.engine.policy;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What an {@link AllowEntry} is matched against. */
public enum AllowType {
    @JsonProperty("ip") IP,
    @JsonProperty("agent") AGENT
}
