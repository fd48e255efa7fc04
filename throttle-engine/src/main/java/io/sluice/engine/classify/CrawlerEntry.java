package io.sluice.engine.classify;

import java.util.List;

/**
 * One entry of the crawler list, as published in {@code crawler-user-agents.json}.
 *
 * @param index     position in the list; when several entries match, the first one wins
 * @param pattern   the entry's regular expression (Java syntax, case-sensitive, found anywhere in the UA)
 * @param url       the crawler's information page, or null
 * @param tags      what the crawler is ({@code search-engine}, {@code http-library}, ...); may be empty
 * @param instances example user agents the pattern must match
 * @param name      a readable name ("Googlebot"), derived from the pattern's match in the first instance
 */
public record CrawlerEntry(int index, String pattern, String url, List<String> tags, List<String> instances,
        String name) {

    public CrawlerEntry {
        tags = tags == null ? List.of() : List.copyOf(tags);
        instances = instances == null ? List.of() : List.copyOf(instances);
    }
}
