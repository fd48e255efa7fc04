package io.sluice.console.connect;

/**
 * A server the console remembers. Its token's secret is not here: it is in the owner-only token file, or read
 * from {@code tokenFile} at each connect (the server's own {@code admin-token} on the same machine, say).
 *
 * @param name      what the operator calls it ("prod-eu")
 * @param url       the admin API's URL, {@code https://host:9090/} (or {@code http://} on loopback)
 * @param tokenName the name of the token the console connects with (what the server's audit records as "who")
 * @param tokenFile a file holding the token's secret, or null when the console keeps the secret
 */
public record KnownServer(String name, String url, String tokenName, String tokenFile) {
}
