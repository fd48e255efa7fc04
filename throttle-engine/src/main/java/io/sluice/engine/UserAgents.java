package io.sluice.engine;

/**
 * How long a user agent the engine keeps, and the cut: one home for what the façade ({@link ThrottleEngine}), its
 * stages (the prelude keys and classifies by it) and the compiled policy (a {@code client} ban's key) share, so none
 * of them reaches back up to the façade for it.
 */
public final class UserAgents {

    /**
     * The longest user agent kept: a longer one is cut before it keys, classifies or matches anything. HTTP header
     * values are ISO-8859-1 on the wire, so this is 512 bytes of the header.
     */
    public static final int MAX_LENGTH = 512;

    private UserAgents() {
    }

    /**
     * {@code userAgent} cut to {@link #MAX_LENGTH} characters (never inside a surrogate pair), so a tracked client, a
     * ban match and a classification each cost bounded memory and time whatever the header's length; null stays null.
     */
    public static String bounded(String userAgent) {
        if (userAgent == null || userAgent.length() <= MAX_LENGTH) {
            return userAgent;
        }
        int end = Character.isHighSurrogate(userAgent.charAt(MAX_LENGTH - 1)) ? MAX_LENGTH - 1 : MAX_LENGTH;
        return userAgent.substring(0, end);
    }
}
