package io.sluice.engine;

import java.util.List;

/**
 * What a user agent was recognised as.
 *
 * @param requestClass the class under the policy's mapping
 * @param crawlerName  the crawler-list entry that matched (a readable name such as "Googlebot"), or null
 * @param tags         the matched entry's tags (e.g. {@code search-engine}), empty when none matched
 */
public record UserAgentMatch(RequestClass requestClass, String crawlerName, List<String> tags) {
    public UserAgentMatch {
        tags = tags == null ? List.of() : List.copyOf(tags);
    }
}
