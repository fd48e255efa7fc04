package io.sluice.engine.classify;

import io.sluice.engine.SignedMessage;

/**
 * Verifies HTTP message signatures as the IETF webbotauth draft profiles them (docs/manual/signed-agents.md): a
 * request signed by a key its agent's key directory publishes is a verified agent under the name the directory
 * gives, a {@code CRAWLER} as a crawler verified by its address is. The engine asks it from the prelude, on the
 * request thread: an implementation answers from what it holds (keys fetched earlier, off the request path) and
 * never blocks, waits for the network or throws.
 */
@FunctionalInterface
public interface SignedAgents {

    /** Believes no signature: what an engine has until the front end installs a verifier. */
    SignedAgents NONE = (message, nowMillis) -> null;

    /**
     * The name of the agent whose valid signature {@code message} carries, or null: no valid signature, a key not
     * known yet (its directory is fetched in the background; the request is an unverified claim meanwhile), an
     * expired or tampered one.
     *
     * @param nowMillis the engine's clock: the signature's {@code created} and {@code expires} are judged at it
     */
    String verifiedAgent(SignedMessage message, long nowMillis);
}
