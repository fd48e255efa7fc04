package io.sluice.console.shell;

/** How the console stands with its server, each with its own look in the top bar. */
public enum ConnectionState {
    /** Before the first answer. */
    CONNECTING,
    CONNECTED,
    /** The last fetch failed to reach the server; the next one tries again. */
    UNREACHABLE,
    /** The server refused the token. */
    UNAUTHORISED,
    /** The server's certificate is not the trusted one (changed, unknown, or for another host): nothing is sent. */
    CERTIFICATE_CHANGED,
    /** The server answered something the console does not understand. */
    ERROR
}
