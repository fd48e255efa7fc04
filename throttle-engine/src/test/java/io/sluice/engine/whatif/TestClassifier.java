package io.sluice.engine.whatif;

import io.sluice.engine.RequestClass;
import io.sluice.engine.UserAgentClassifier;
import io.sluice.engine.UserAgentMatch;
import io.sluice.engine.policy.Policy;
import java.util.List;
import java.util.Locale;

/** "...bot..." is a crawler named after its first word, "Mozilla..." a browser, anything else a bot. */
final class TestClassifier implements UserAgentClassifier {

    @Override
    public UserAgentMatch classify(String userAgent, Policy.Classification classification) {
        if (userAgent == null || userAgent.isEmpty()) {
            return new UserAgentMatch(RequestClass.BOT, null, List.of());
        }
        if (userAgent.toLowerCase(Locale.ROOT).contains("bot")) {
            return new UserAgentMatch(RequestClass.CRAWLER, userAgent.split("[/ ]")[0], List.of("search-engine"));
        }
        if (userAgent.startsWith("Mozilla")) {
            return new UserAgentMatch(RequestClass.BROWSER, null, List.of());
        }
        return new UserAgentMatch(RequestClass.BOT, null, List.of());
    }
}
