package io.sluice.engine.policy;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What kind of automated client a crawler-list entry is, as the policy names it ({@code agents.categories};
 * docs/manual/classify.md, "Categories"). The list's own tags are finer and change with its releases; a category is
 * what an operator decides about. Derived from an entry's name and tags by {@link #of}, first match wins:
 * <ol>
 *   <li>tag {@code ai-crawler}: {@link #AI_SEARCH} when the entry is also tagged {@code search-engine} or is one of
 *       the assistants that fetch a page for a person ({@link #ASSISTANTS}), else {@link #AI_TRAINING};</li>
 *   <li>{@code search-engine}: {@link #SEARCH_ENGINE}; {@code archiver}: {@link #ARCHIVE}; {@code seo}:
 *       {@link #SEO}; {@code feed-reader}: {@link #FEED_READER}; {@code monitoring}: {@link #MONITOR};</li>
 *   <li>anything else (HTTP libraries, scanners, advertising, social previews, academic): {@link #OTHER}.</li>
 * </ol>
 * The AI tags come first on purpose: an entry tagged both {@code ai-crawler} and {@code search-engine} answers
 * people's questions with the site's text, and an operator who refuses AI crawlers means it too.
 */
public enum Category {
    SEARCH_ENGINE("search-engine"),
    AI_TRAINING("ai-training"),
    AI_SEARCH("ai-search"),
    ARCHIVE("archive"),
    SEO("seo"),
    FEED_READER("feed-reader"),
    MONITOR("monitor"),
    OTHER("other");

    /**
     * AI agents the list tags {@code ai-crawler} only, that fetch a page because a person asked (an assistant), not to
     * train a model: by their list names. Checked with the list's updates (scripts/update-crawler-list.sh prints the
     * {@code ai-crawler} entries that are new).
     */
    static final Set<String> ASSISTANTS = Set.of("ChatGPT-User", "Claude-User", "MistralAI-User", "Amzn-User",
            "Amzn-SearchBot", "kagi-fetcher", "Google-NotebookLM", "linkReader", "AzureAI-SearchBot", "LinkupBot",
            "PhindBot", "TavilyBot", "ZanistaBot", "Aranet-SearchBot", "iaskspider", "atlassian-bot", "Anomura",
            "LinerBot");

    /** The categories a list tag decides, in order of precedence. */
    private static final Category[] BY_TAG = {SEARCH_ENGINE, ARCHIVE, SEO, FEED_READER, MONITOR};

    private final String wire;

    Category(String wire) {
        this.wire = wire;
    }

    /** The list tag that makes this category (after the AI tags), or null. */
    private String tag() {
        return switch (this) {
            case SEARCH_ENGINE -> "search-engine";
            case ARCHIVE -> "archiver";
            case SEO -> "seo";
            case FEED_READER -> "feed-reader";
            case MONITOR -> "monitoring";
            default -> null;
        };
    }

    /** The name in the policy, the snapshot and the console ({@code ai-training}). */
    @JsonValue
    public String wire() {
        return wire;
    }

    /**
     * The category named {@code text} ({@code ai-training}; case and {@code _} for {@code -} forgiven).
     *
     * @throws IllegalArgumentException naming the categories when it is none of them
     */
    @JsonCreator
    public static Category parse(String text) {
        String wanted = text == null ? "" : text.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        for (Category category : values()) {
            if (category.wire.equals(wanted)) {
                return category;
            }
        }
        throw new IllegalArgumentException("unknown category '" + text + "': one of " + names());
    }

    /** Every category's name, in order, for messages. */
    public static String names() {
        StringBuilder out = new StringBuilder();
        for (Category category : values()) {
            out.append(out.length() == 0 ? "" : ", ").append(category.wire);
        }
        return out.toString();
    }

    /** The category of a list entry by its readable name and tags; null when no entry matched ({@code name} null). */
    public static Category of(String name, List<String> tags) {
        if (name == null) {
            return null;
        }
        if (tags.contains("ai-crawler")) {
            return tags.contains("search-engine") || ASSISTANTS.contains(name) ? AI_SEARCH : AI_TRAINING;
        }
        for (Category category : BY_TAG) {
            if (tags.contains(category.tag())) {
                return category;
            }
        }
        return OTHER;
    }
}
