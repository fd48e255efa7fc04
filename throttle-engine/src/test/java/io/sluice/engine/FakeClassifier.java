package io.sluice.engine;

import io.sluice.engine.policy.Policy;
import java.util.List;
import java.util.Locale;

/** "...bot..." is a crawler named after itself, "Mozilla..." a browser, anything else a bot. */
final class FakeClassifier implements UserAgentClassifier {

    @Override
    public UserAgentMatch classify(String userAgent, Policy.Classification classification) {
        if (userAgent == null) {
            return new UserAgentMatch(RequestClass.BOT, null, List.of());
        }
        if (userAgent.toLowerCase(Locale.ROOT).contains("bot")) {
            String name = userAgent.split("[/ ]")[0];
            return new UserAgentMatch(RequestClass.CRAWLER, name, List.of("search-engine"));
        }
        if (userAgent.startsWith("Mozilla")) {
            return new UserAgentMatch(RequestClass.BROWSER, null, List.of());
        }
        return new UserAgentMatch(RequestClass.BOT, null, List.of());
    }
}
