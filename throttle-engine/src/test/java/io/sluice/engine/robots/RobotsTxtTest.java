package io.sluice.engine.robots;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** RFC 9309's rules, case by case (section numbers of the RFC). */
class RobotsTxtTest {

    @Test
    void theGroupThatNamesTheProductTokenWinsOverStar() { // 2.2.1
        RobotsTxt robots = RobotsTxt.parse("""
                User-agent: *
                Disallow: /

                User-agent: ExampleBot
                Disallow: /private
                """);
        assertThat(robots.allowed("ExampleBot", "/public")).isTrue();
        assertThat(robots.allowed("ExampleBot", "/private/x")).isFalse();
        assertThat(robots.allowed("OtherBot", "/public")).isFalse();
        assertThat(robots.groups()).isEqualTo(2);
    }

    @Test
    void productTokensMatchCaseInsensitivelyAndTheLineIsCutToTheToken() { // 2.2.1
        RobotsTxt robots = RobotsTxt.parse("user-agent: EXAMPLEBOT/2.1 (+http://example.com)\ndisallow: /x\n");
        assertThat(robots.allowed("examplebot", "/x")).isFalse();
        assertThat(robots.names("ExampleBot")).isTrue();
        assertThat(robots.allowed("ExampleBot-Image", "/x")).as("another token").isTrue();
    }

    @Test
    void severalUserAgentLinesShareAGroupAndGroupsOfOneTokenCombine() { // 2.1, 2.2.1
        RobotsTxt robots = RobotsTxt.parse("""
                User-agent: a
                User-agent: b
                Disallow: /ab

                User-agent: a
                Disallow: /a-only
                """);
        assertThat(robots.allowed("a", "/ab")).isFalse();
        assertThat(robots.allowed("b", "/ab")).isFalse();
        assertThat(robots.allowed("a", "/a-only")).isFalse();
        assertThat(robots.allowed("b", "/a-only")).isTrue();
    }

    @Test
    void theLongestMatchWinsAndAllowWinsATie() { // 2.2.2
        RobotsTxt robots = RobotsTxt.parse("""
                User-agent: *
                Disallow: /example/page/
                Allow: /example/page/disallowed.gif
                Allow: /x
                Disallow: /x
                """);
        assertThat(robots.allowed("bot", "/example/page/disallowed.gif")).isTrue();
        assertThat(robots.allowed("bot", "/example/page/other")).isFalse();
        assertThat(robots.allowed("bot", "/x")).as("tie: the least restrictive").isTrue();
    }

    @Test
    void starAndDollarInPatterns() { // 2.2.3
        RobotsTxt robots = RobotsTxt.parse("""
                User-agent: *
                Disallow: /*.gif$
                Disallow: /private*/secret
                Allow: /private-ok/secret
                """);
        assertThat(robots.allowed("bot", "/a/b.gif")).isFalse();
        assertThat(robots.allowed("bot", "/a/b.gif?x=1")).as("$ anchors at the end").isTrue();
        assertThat(robots.allowed("bot", "/private-1/secret/x")).isFalse();
        assertThat(robots.allowed("bot", "/private-ok/secret")).as("longer allow").isTrue();
        assertThat(RobotsTxt.matches("/a*b*c$", "/axxbyyc")).isTrue();
        assertThat(RobotsTxt.matches("/a*b*c$", "/axxbyycd")).isFalse();
        assertThat(RobotsTxt.matches("*", "/")).isTrue();
    }

    @Test
    void emptyDisallowCommentsUnknownKeysAndStrayRulesAreIgnored() { // 2.2.2, 2.2.4, 2.3.3
        RobotsTxt robots = RobotsTxt.parse("""
                Disallow: /before-any-group
                # a comment
                User-agent: *   # trailing comment
                Disallow:
                Crawl-delay: 10
                Sitemap: https://example.com/sitemap.xml
                this line does not parse
                Disallow: /tmp # comment
                """);
        assertThat(robots.allowed("bot", "/before-any-group")).isTrue();
        assertThat(robots.allowed("bot", "/anything")).isTrue();
        assertThat(robots.allowed("bot", "/tmp/1")).isFalse();
    }

    @Test
    void robotsTxtItselfIsAlwaysAllowedAndNoMatchingGroupAllowsAll() { // 2.2.1, 2.4
        RobotsTxt robots = RobotsTxt.parse("User-agent: a\nDisallow: /\n");
        assertThat(robots.allowed("a", "/robots.txt")).isTrue();
        assertThat(robots.allowed("b", "/anything")).as("no group for b, no * group").isTrue();
        assertThat(RobotsTxt.EMPTY.allowed("a", "/x")).isTrue();
        assertThat(RobotsTxt.parse(null).groups()).isZero();
    }

    @Test
    void onlyTheFirstMaxCharsAreRead() { // 2.5
        String padding = "#".repeat(RobotsTxt.MAX_CHARS);
        RobotsTxt robots = RobotsTxt.parse("User-agent: *\nDisallow: /a\n" + padding + "\nDisallow: /b\n");
        assertThat(robots.allowed("bot", "/a")).isFalse();
        assertThat(robots.allowed("bot", "/b")).isTrue();
    }

    @Test
    void theTrapIsAddedToEveryGroupAndToANewStarGroup() {
        String served = RobotsTxt.withDisallowEverywhere("""
                User-agent: GPTBot
                User-agent: CCBot
                Disallow: /

                User-agent: Googlebot
                Allow: /
                """, "/.trap/");
        RobotsTxt robots = RobotsTxt.parse(served);
        for (String bot : new String[] {"GPTBot", "CCBot", "Googlebot", "AnyBot"}) {
            assertThat(robots.allowed(bot, "/.trap/x")).as(bot).isFalse();
        }
        assertThat(robots.allowed("Googlebot", "/page")).as("the rest unchanged").isTrue();
        assertThat(robots.allowed("AnyBot", "/page")).isTrue();
        assertThat(served).startsWith("User-agent: GPTBot\nUser-agent: CCBot\nDisallow: /.trap/\nDisallow: /\n");
        assertThat(RobotsTxt.parse(RobotsTxt.withDisallowEverywhere("", "/.trap/")).allowed("x", "/.trap/"))
                .isFalse();
        assertThat(RobotsTxt.parse(RobotsTxt.withDisallowEverywhere("User-agent: *", "/.trap/"))
                .allowed("x", "/.trap/")).isFalse();
    }
}
