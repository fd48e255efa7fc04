package io.sluice.engine;

import static io.sluice.engine.EngineFixture.admitted;
import static io.sluice.engine.EngineFixture.refused;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.policy.Category;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Agents;
import io.sluice.engine.policy.Ban;
import io.sluice.engine.policy.Escalation;
import io.sluice.engine.policy.Policy;
import io.sluice.engine.robots.RobotsTxt;
import io.sluice.engine.telemetry.AgentRow;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The agent rule with the shipped crawler list: categories and their actions, robots.txt compliance, the trap. */
class AgentRulesTest {

    static final String GPTBOT =
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.0; +https://openai.com/gptbot)";
    static final String CHATGPT_USER =
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot";
    static final String GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    static final String ARCHIVER = "ia_archiver (+http://www.alexa.com/site/help/webmasters; crawler@alexa.com)";
    static final String AHREFS = "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)";
    static final String FEEDLY = "Feedly/1.0 (+http://www.feedly.com/fetcher.html; like FeedFetcher-Google)";
    static final String UPTIME = "Mozilla/5.0+(compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)";
    static final String CURL = "curl/8.5.0";
    static final String FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0";

    /** Where the policy says GPTBot, ChatGPT-User, Googlebot, ia_archiver live (stands in for published ranges). */
    static final String VERIFIED_AT = "192.0.2.10";
    static final String ELSEWHERE = "198.51.100.7";

    private final ManualClock clock = ManualClock.at("2026-11-22T10:00:00Z");
    private final CrawlerListClassifier classifier = CrawlerListClassifier.bundled();

    private ThrottleEngine engine(Agents agents) {
        Policy policy = EngineFixture.withoutBrowserCheck(Policy.defaults());
        policy = policy.withCrawlers(new Policy.Crawlers(30, 0, true, Map.of(
                "GPTBot", List.of(VERIFIED_AT), "ChatGPT-User", List.of(VERIFIED_AT),
                "Googlebot", List.of(VERIFIED_AT), "ia_archiver", List.of(VERIFIED_AT))))
                .withAgents(agents);
        return new ThrottleEngine(EngineConfig.defaults(), clock, policy, classifier);
    }

    private static Agents rules(Category category, Agents.CategoryRule rule) {
        return new Agents(Map.of(category, rule), null, null);
    }

    private static Decision page(ThrottleEngine engine, String ip, String agent, String path) {
        return engine.decide(Request.get(ip, agent, path).asNavigation());
    }

    @Test
    void theListsTagsBecomeCategories() {
        Map<String, Category> expected = Map.of(GOOGLEBOT, Category.SEARCH_ENGINE, GPTBOT, Category.AI_TRAINING,
                CHATGPT_USER, Category.AI_SEARCH, ARCHIVER, Category.ARCHIVE, AHREFS, Category.SEO,
                FEEDLY, Category.FEED_READER, UPTIME, Category.MONITOR, CURL, Category.OTHER);
        expected.forEach((agent, category) -> {
            UserAgentMatch match = classifier.classify(agent, Policy.Classification.DEFAULT);
            assertThat(Category.of(match.crawlerName(), match.tags())).as(agent).isEqualTo(category);
        });
        assertThat(Category.of(null, List.of())).isNull();
        assertThat(Category.parse("AI_TRAINING")).isEqualTo(Category.AI_TRAINING);
    }

    @Test
    void withoutRulesEveryCategoryIsCrawledAsBefore() {
        ThrottleEngine engine = engine(Agents.DEFAULTS);
        Decision.Admit google = admitted(page(engine, VERIFIED_AT, GOOGLEBOT, "/a"));
        assertThat(google.client().requestClass()).isEqualTo(RequestClass.CRAWLER);
        google.admission().complete(200, 1_000);
        refused(page(engine, VERIFIED_AT, GOOGLEBOT, "/b"), Reason.CRAWLER_SPACING);
        assertThat(admitted(page(engine, ELSEWHERE, GOOGLEBOT, "/c")).client().requestClass())
                .as("an unverified claim is a bot, as today").isEqualTo(RequestClass.BOT);
    }

    @Test
    void aRefusedCategoryIsRefusedVerifiedOrNotWithTheOperatorsMessage() {
        ThrottleEngine engine = engine(rules(Category.AI_TRAINING, new Agents.CategoryRule(Agents.Action.REFUSE,
                null, null, "No training on this site; see /licence.")));
        Decision.Refuse verified = refused(page(engine, VERIFIED_AT, GPTBOT, "/a"), Reason.CATEGORY);
        assertThat(verified.status()).isEqualTo(403);
        assertThat(verified.detail()).isEqualTo("No training on this site; see /licence.");
        assertThat(refused(page(engine, ELSEWHERE, GPTBOT, "/a"), Reason.CATEGORY).status())
                .as("an unverified claim of a refused category is simply refused").isEqualTo(403);
        assertThat(admitted(page(engine, VERIFIED_AT, CHATGPT_USER, "/a")).client().requestClass())
                .as("an AI assistant is another category").isEqualTo(RequestClass.CRAWLER);
        AgentRow row = engine.snapshot().agents().agents().stream().filter(r -> r.name().equals("GPTBot"))
                .findFirst().orElseThrow();
        assertThat(row).extracting(AgentRow::category, AgentRow::action, AgentRow::requests, AgentRow::verified,
                AgentRow::refused).containsExactly(Category.AI_TRAINING, Agents.Action.REFUSE, 2L, 1L, 2L);
    }

    @Test
    void aRefusalMayCarry402() {
        ThrottleEngine engine = engine(rules(Category.AI_TRAINING,
                new Agents.CategoryRule(Agents.Action.REFUSE, null, 402, null)));
        Decision.Refuse refusal = refused(page(engine, VERIFIED_AT, GPTBOT, "/a"), Reason.CATEGORY);
        assertThat(refusal.status()).isEqualTo(402);
        assertThat(refusal.detail()).contains("ai-training");
    }

    @Test
    void anAllowedCategoryIsServedWithoutTheCrawlerRulesButAnUnverifiedClaimIsNot() {
        ThrottleEngine engine = engine(rules(Category.ARCHIVE,
                new Agents.CategoryRule(Agents.Action.ALLOW, null, null, null)));
        for (int i = 0; i < 20; i++) {
            Decision.Admit admit = admitted(page(engine, VERIFIED_AT, ARCHIVER, "/p" + i));
            assertThat(admit.client().allowListed()).isTrue();
            admit.admission().complete(200, 1_000);
        }
        Decision.Admit claim = admitted(page(engine, ELSEWHERE, ARCHIVER, "/p"));
        assertThat(claim.client().allowListed()).as("unverified: today's rules").isFalse();
        assertThat(claim.client().requestClass()).isEqualTo(RequestClass.BOT);
    }

    @Test
    void anUnverifiedClaimCanHaveItsOwnAction() {
        ThrottleEngine engine = engine(rules(Category.SEARCH_ENGINE,
                new Agents.CategoryRule(Agents.Action.CRAWL, Agents.Action.REFUSE, null, null)));
        admitted(page(engine, VERIFIED_AT, GOOGLEBOT, "/a"));
        assertThat(refused(page(engine, ELSEWHERE, GOOGLEBOT, "/a"), Reason.CATEGORY).detail())
                .contains("cannot be verified");
    }

    @Test
    void aChallengedCategoryGetsTheInterstitialForPagesAndARefusalForTheRest() {
        ThrottleEngine engine = engine(rules(Category.SEO,
                new Agents.CategoryRule(Agents.Action.CHALLENGE, null, null, null)));
        Decision.Refuse challenge = refused(page(engine, ELSEWHERE, AHREFS, "/a"), Reason.CHALLENGE);
        assertThat(challenge.challengeBits()).isEqualTo(engine.policy().browserCheck().difficulty());
        refused(engine.decide(new Request(ELSEWHERE, AHREFS, null, "POST", "/form", null, null)),
                Reason.PASS_REQUIRED);
    }

    @Test
    void robotsTxtViolationsAreCountedPerCrawlerAndObeyingOnesNever() {
        ThrottleEngine engine = engine(Agents.DEFAULTS);
        engine.robotsTxt(RobotsTxt.parse("User-agent: GPTBot\nDisallow: /private\n\nUser-agent: *\nDisallow: /tmp\n"));
        admitted(page(engine, VERIFIED_AT, GPTBOT, "/private/1")).admission().complete(200, 1);
        clock.advanceMillis(60_000L);
        admitted(page(engine, VERIFIED_AT, GPTBOT, "/tmp/1")).admission().complete(200, 1);
        clock.advanceMillis(60_000L);
        admitted(page(engine, VERIFIED_AT, GOOGLEBOT, "/private/1")).admission().complete(200, 1);
        clock.advanceMillis(60_000L);
        Map<String, AgentRow> rows = rowsByName(engine);
        assertThat(rows.get("GPTBot").disallowed()).as("its own group disallows /private, not /tmp").isEqualTo(1);
        assertThat(rows.get("Googlebot").disallowed()).as("the * group does not disallow /private").isZero();
        assertThat(rows.get("Googlebot").compliant()).isTrue();
        assertThat(engine.snapshot().agents().robotsGroups()).isEqualTo(2);
        assertThat(engine.snapshot().agents().robotsReadAt()).isEqualTo(clock.instant().minusSeconds(180));
    }

    @Test
    void theEscalationRuleBansACrawlerThatKeepsBreakingRobotsTxt() {
        ThrottleEngine engine = engine(new Agents(Map.of(),
                new Agents.Robots(new Escalation(Escalation.Scope.CLIENT, 3, 600, 3600, 2, 86_400)), null));
        engine.robotsTxt(RobotsTxt.parse("User-agent: *\nDisallow: /private\n"));
        for (int i = 0; i < 3; i++) {
            Decision decision = page(engine, ELSEWHERE, AHREFS, "/private/" + i);
            admitted(decision).admission().complete(200, 1);
            clock.advanceMillis(1_000L);
        }
        refused(page(engine, ELSEWHERE, AHREFS, "/public"), Reason.BANNED);
        List<Ban> pending = engine.pendingAutomaticBans();
        assertThat(pending).singleElement().satisfies(ban -> {
            assertThat(ban.reason()).startsWith("robots.txt: 3 disallowed fetches");
            assertThat(ban.value()).isEqualTo(ELSEWHERE + "|" + AHREFS);
        });
    }

    @Test
    void aCrawlerThatObeysIsNeverBannedByTheEscalationRule() {
        ThrottleEngine engine = engine(new Agents(Map.of(),
                new Agents.Robots(new Escalation(Escalation.Scope.CLIENT, 1, 600, 3600, 2, 86_400)), null));
        engine.robotsTxt(RobotsTxt.parse("User-agent: *\nDisallow: /private\n"));
        for (int i = 0; i < 5; i++) {
            admitted(page(engine, ELSEWHERE, AHREFS, "/public/" + i)).admission().complete(200, 1);
        }
        assertThat(engine.pendingAutomaticBans()).isEmpty();
        assertThat(rowsByName(engine).get("AhrefsBot").disallowed()).isZero();
    }

    @Test
    void theTrapMarksAPlainClientForTheBrowserCheck() {
        ThrottleEngine engine = engine(new Agents(Map.of(), null,
                new Agents.Trap("/.sluice-trap/", Agents.TrapAction.CHALLENGE, 600, false)));
        admitted(page(engine, ELSEWHERE, FIREFOX, "/a")).admission().complete(200, 1);
        refused(page(engine, ELSEWHERE, FIREFOX, "/.sluice-trap/x"), Reason.TRAP);
        refused(page(engine, ELSEWHERE, FIREFOX, "/a"), Reason.CHALLENGE);
        refused(page(engine, ELSEWHERE, CURL, "/a"), Reason.CHALLENGE);
        // the check's funnel counts these interstitials as its own, the site's and the network's
        assertThat(engine.snapshot().browserCheck().challenged()).isEqualTo(2);
        assertThat(engine.snapshot().networks()).filteredOn(row -> row.network().equals("198.51.100.0/24"))
                .singleElement().satisfies(row -> assertThat(row.funnel().challenged()).isEqualTo(2));
        admitted(page(engine, "203.0.113.5", FIREFOX, "/a")); // another address is not marked
        clock.advanceMillis(601_000L);
        admitted(page(engine, ELSEWHERE, FIREFOX, "/a")); // the mark has ended
        assertThat(engine.snapshot().agents().trapFetches()).isEqualTo(1);
    }

    @Test
    void theTrapBansWhenThePolicySaysSo() {
        ThrottleEngine engine = engine(new Agents(Map.of(), null,
                new Agents.Trap("/.sluice-trap/", Agents.TrapAction.BAN, 600, false)));
        refused(page(engine, ELSEWHERE, CURL, "/.sluice-trap/"), Reason.TRAP);
        refused(page(engine, ELSEWHERE, FIREFOX, "/a"), Reason.BANNED);
        assertThat(engine.pendingAutomaticBans()).singleElement()
                .satisfies(ban -> assertThat(ban.reason()).startsWith("trap:"));
    }

    @Test
    void theTrapNeverMarksAVerifiedCrawler() {
        ThrottleEngine engine = engine(new Agents(Map.of(), null,
                new Agents.Trap("/.sluice-trap/", Agents.TrapAction.BAN, 600, false)));
        refused(page(engine, VERIFIED_AT, GOOGLEBOT, "/.sluice-trap/"), Reason.TRAP);
        clock.advanceMillis(60_000L);
        admitted(page(engine, VERIFIED_AT, GOOGLEBOT, "/a"));
        assertThat(engine.pendingAutomaticBans()).isEmpty();
        assertThat(rowsByName(engine).get("Googlebot").disallowed()).as("counted as breaking robots.txt").isEqualTo(1);
        refused(page(engine, ELSEWHERE, GOOGLEBOT, "/.sluice-trap/"), Reason.TRAP);
        refused(page(engine, ELSEWHERE, GOOGLEBOT, "/a"), Reason.BANNED); // an unverified claim is anyone
    }

    @Test
    void theSnapshotRowShowsTheCategory() {
        ThrottleEngine engine = engine(Agents.DEFAULTS);
        admitted(page(engine, VERIFIED_AT, GPTBOT, "/a"));
        assertThat(engine.snapshot().topClients()).filteredOn(row -> !row.address())
                .singleElement().satisfies(row -> assertThat(row.category()).isEqualTo(Category.AI_TRAINING));
    }

    private static Map<String, AgentRow> rowsByName(ThrottleEngine engine) {
        Map<String, AgentRow> rows = new java.util.HashMap<>();
        engine.snapshot().agents().agents().forEach(row -> rows.put(row.name(), row));
        return rows;
    }
}
