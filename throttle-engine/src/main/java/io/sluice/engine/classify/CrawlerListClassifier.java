package io.sluice.engine.classify;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.sluice.engine.RequestClass;
import io.sluice.engine.UserAgentClassifier;
import io.sluice.engine.UserAgentMatch;
import io.sluice.engine.policy.Policy;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Classifies user agents with the maintained crawler list (docs/architecture.md, "Request classes").
 *
 * <ol>
 *   <li>Empty or missing user agent: {@code BOT}.</li>
 *   <li>The first list entry whose pattern is found in the user agent (case-sensitive, as the list is
 *       written) decides: {@code CRAWLER} when one of its tags is among the policy's
 *       {@link Policy.Classification#crawlerTags()}, else {@code BOT}. The match carries the entry's
 *       readable name and tags either way (curl is a {@code BOT} named "curl").</li>
 *   <li>No entry matched and the user agent has a browser signature: {@code BROWSER}.</li>
 *   <li>Anything else: {@code BOT}.</li>
 * </ol>
 *
 * <p>Cost: what the list says about a user agent is cached (bounded Caffeine cache, keyed by the user agent
 * string, from the user agent's second sighting; user agents over {@link #MAX_CACHED_LENGTH} chars are not cached
 * so the cache's memory stays bounded by count times length). The class is derived per call from the cached entry
 * and the policy's tags with a couple of array reads, so a live change of the tag mapping takes effect on the next
 * request without flushing the cache. A miss costs one multi-literal scan plus the few candidate regexes ({@link
 * CrawlerMatcher}), not 1,500 regexes, so unique random user agents are not a CPU attack. A user agent found in the
 * cache is also remembered in a small direct-mapped table in front of it ({@link #hot}), so the few user agents
 * that make most requests cost one array read and a string comparison, not a cache lookup with its access
 * bookkeeping. Only cached user agents enter that table, so a spray cannot churn it.
 *
 * <p>Thread-safe.
 */
public final class CrawlerListClassifier implements UserAgentClassifier {

    /** Default number of distinct user agents remembered. */
    public static final int DEFAULT_CACHE_SIZE = 20_000;
    /** Longer user agents are classified every time rather than cached. */
    public static final int MAX_CACHED_LENGTH = 512;
    /** Slots of the table in front of the cache (a power of two). */
    private static final int HOT_SLOTS = 1024;

    private static final UserAgentMatch BROWSER = new UserAgentMatch(RequestClass.BROWSER, null, List.of());
    private static final UserAgentMatch UNKNOWN_BOT = new UserAgentMatch(RequestClass.BOT, null, List.of());

    private final CrawlerList list;
    private final CrawlerMatcher matcher;
    private final Recognition[] byEntry;
    private final Map<String, Integer> tagIds = new HashMap<>();
    private final Cache<String, Recognition> cache;
    private final int[] doorkeeper = new int[1 << 16];
    /**
     * Recently found cached user agents, a slot per hash (the newest wins a slot). Unsynchronised: entries are
     * immutable and published through final fields, so a race only looks the cache up once more.
     */
    private final Hot[] hot = new Hot[HOT_SLOTS];
    private volatile TagMemo memo;

    private CrawlerListClassifier(CrawlerList list, long cacheSize) {
        if (cacheSize < 0) {
            throw new IllegalArgumentException("cache size must be >= 0, was " + cacheSize);
        }
        this.list = list;
        this.matcher = new CrawlerMatcher(list.patterns());
        this.byEntry = new Recognition[list.size()];
        for (CrawlerEntry entry : list.entries()) {
            int[] ids = entry.tags().stream().mapToInt(t -> tagIds.computeIfAbsent(t, k -> tagIds.size())).toArray();
            byEntry[entry.index()] = new Recognition(entry, ids,
                    new UserAgentMatch(RequestClass.CRAWLER, entry.name(), entry.tags()),
                    new UserAgentMatch(RequestClass.BOT, entry.name(), entry.tags()));
        }
        this.cache = Caffeine.newBuilder().maximumSize(cacheSize).build();
    }

    /** With the bundled list and the default cache size. */
    public static CrawlerListClassifier bundled() {
        return new CrawlerListClassifier(CrawlerList.bundled(), DEFAULT_CACHE_SIZE);
    }

    /**
     * With an operator's list file (same format as the bundled one) and the default cache size.
     *
     * @throws IllegalArgumentException when the file is not a valid list
     */
    public static CrawlerListClassifier fromFile(Path file) {
        return new CrawlerListClassifier(CrawlerList.fromFile(file), DEFAULT_CACHE_SIZE);
    }

    /** With a given list and cache size (0 disables caching). */
    public static CrawlerListClassifier of(CrawlerList list, long cacheSize) {
        return new CrawlerListClassifier(list, cacheSize);
    }

    @Override
    public UserAgentMatch classify(String userAgent, Policy.Classification classification) {
        if (userAgent == null || userAgent.isEmpty()) {
            return UNKNOWN_BOT;
        }
        Recognition recognition;
        if (userAgent.length() > MAX_CACHED_LENGTH) {
            recognition = recognise(userAgent);
        } else {
            int hash = userAgent.hashCode();
            int slot = (hash ^ (hash >>> 16)) & (HOT_SLOTS - 1);
            Hot remembered = hot[slot];
            if (remembered != null && (remembered.userAgent == userAgent || remembered.userAgent.equals(userAgent))) {
                recognition = remembered.recognition;
            } else {
                recognition = cache.getIfPresent(userAgent);
                if (recognition != null) {
                    hot[slot] = new Hot(userAgent, recognition);
                } else {
                    recognition = recognise(userAgent);
                    if (seenBefore(userAgent)) {
                        cache.put(userAgent, recognition);
                    }
                }
            }
        }
        return recognition.toMatch(crawlerTagBits(classification));
    }

    /** The same answer as {@link #classify}, always computed afresh (for benchmarks and checks). */
    public UserAgentMatch classifyUncached(String userAgent, Policy.Classification classification) {
        if (userAgent == null || userAgent.isEmpty()) {
            return UNKNOWN_BOT;
        }
        return recognise(userAgent).toMatch(crawlerTagBits(classification));
    }

    /** The first list entry found in {@code userAgent}, or null; uncached. */
    public CrawlerEntry findEntry(String userAgent) {
        if (userAgent == null || userAgent.isEmpty()) {
            return null;
        }
        int index = matcher.firstMatch(userAgent);
        return index < 0 ? null : list.entries().get(index);
    }

    public CrawlerList list() {
        return list;
    }

    /** Approximate number of user agents cached (for telemetry). */
    public long cachedCount() {
        return cache.estimatedSize();
    }

    /**
     * Doorkeeper: a user agent enters the cache on its second sighting. A spray of unique user agents
     * then never churns the cache (inserts and evictions cost more than the match itself, and would
     * push out the real clients' entries); a user agent that comes back is cached from then on. The
     * table holds one hash per slot; races and collisions only make an entry cached a little early.
     */
    private boolean seenBefore(String userAgent) {
        int hash = userAgent.hashCode() * 0x9E3779B9;
        int slot = (hash >>> 16) & (doorkeeper.length - 1);
        if (doorkeeper[slot] == hash) {
            return true;
        }
        doorkeeper[slot] = hash;
        return false;
    }

    private Recognition recognise(String userAgent) {
        int index = matcher.firstMatch(userAgent);
        if (index >= 0) {
            return byEntry[index];
        }
        return BrowserSignature.isBrowser(userAgent) ? Recognition.BROWSER_SIGNATURE : Recognition.NOTHING;
    }

    /** Bit set over tag ids of the policy's crawler tags, memoised for the policy's Classification value. */
    private long[] crawlerTagBits(Policy.Classification requested) {
        Policy.Classification classification = requested == null ? Policy.Classification.DEFAULT : requested;
        TagMemo current = memo;
        if (current != null && (current.classification == classification
                || current.classification.equals(classification))) {
            return current.bits;
        }
        long[] bits = new long[((tagIds.size() + 63) >>> 6) + 1];
        for (String tag : classification.crawlerTags()) {
            Integer id = tagIds.get(tag);
            if (id != null) {
                bits[id >>> 6] |= 1L << id;
            }
        }
        memo = new TagMemo(classification, bits);
        return bits;
    }

    private record Hot(String userAgent, Recognition recognition) {
    }

    private record TagMemo(Policy.Classification classification, long[] bits) {
    }

    /** What the list (and browser signature) says about a user agent, independent of the policy. */
    private record Recognition(CrawlerEntry entry, int[] tagIds, UserAgentMatch asCrawler, UserAgentMatch asBot) {
        static final Recognition BROWSER_SIGNATURE = new Recognition(null, new int[0], BROWSER, BROWSER);
        static final Recognition NOTHING = new Recognition(null, new int[0], UNKNOWN_BOT, UNKNOWN_BOT);

        UserAgentMatch toMatch(long[] crawlerTags) {
            for (int id : tagIds) {
                if ((crawlerTags[id >>> 6] & (1L << id)) != 0) {
                    return asCrawler;
                }
            }
            return asBot;
        }
    }
}
