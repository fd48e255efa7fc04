package io.sluice.engine.whatif;

/**
 * One request from an access log.
 *
 * @param epochSecond when it was logged (NCSA times are whole seconds)
 * @param ip          the client address the log names
 * @param method      the request method
 * @param path        the request path, without the query
 * @param query       the query (after {@code ?}), or null when the target has none: routes can match on it
 * @param userAgent   the user agent, empty when the log has {@code -}
 * @param logged      Sluice's own decision ({@code sluice=ADMIT}, ...), or null when the line has none
 */
record LogEntry(long epochSecond, String ip, String method, String path, String query, String userAgent,
                Outcome logged) {
}
