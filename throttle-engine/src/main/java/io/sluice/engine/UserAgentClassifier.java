package io.sluice.engine;

import io.sluice.engine.policy.Policy;

/**
 * Puts a user agent in a {@link RequestClass}. Implementations are thread-safe and cheap on the
 * request path (cached per user agent, and fast when uncached).
 */
public interface UserAgentClassifier {

    /**
     * @param userAgent      the raw {@code User-Agent}, or null when absent
     * @param classification the live policy's tag-to-class mapping
     */
    UserAgentMatch classify(String userAgent, Policy.Classification classification);
}
