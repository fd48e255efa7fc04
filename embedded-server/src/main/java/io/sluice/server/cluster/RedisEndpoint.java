package io.sluice.server.cluster;

import io.lettuce.core.RedisURI;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Where the cluster's Redis (or Valkey) is: what {@code --redis redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]}
 * says. {@code rediss://} connects with TLS (the server's certificate checked against the JVM's trust
 * store). The password comes from the URL, else from {@code SLUICE_REDIS_PASSWORD}, so it need not appear
 * in a process list. {@link #toString()} never shows it.
 *
 * @param tls      {@code rediss://}
 * @param host     host name or address
 * @param port     6379 unless given
 * @param database the logical database, 0 unless given
 * @param username an ACL user, or null for the default user
 * @param password null for none
 */
public record RedisEndpoint(boolean tls, String host, int port, int database, String username, String password) {
    public static final int DEFAULT_PORT = 6379;
    /** The environment variable that carries the password when the URL does not. */
    public static final String PASSWORD_VARIABLE = "SLUICE_REDIS_PASSWORD";

    public RedisEndpoint {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("a Redis URL needs a host: redis://HOST:PORT");
        }
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("Redis port must be 1-65535, not " + port);
        }
        if (database < 0) {
            throw new IllegalArgumentException("Redis database must be 0 or more, not " + database);
        }
    }

    /**
     * @param url              {@code redis://HOST[:PORT][/DB]} or {@code rediss://...}, optionally with
     *                         {@code [USER]:PASSWORD@} before the host
     * @param passwordFallback the password to use when the URL has none (the environment variable's value),
     *                         or null
     * @throws IllegalArgumentException saying what is wrong with the URL
     */
    public static RedisEndpoint parse(String url, String passwordFallback) {
        URI uri;
        try {
            uri = new URI(url.trim());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a Redis URL: '" + url + "' (" + e.getReason() + ")");
        }
        String scheme = uri.getScheme();
        if (scheme == null || !scheme.equals("redis") && !scheme.equals("rediss")) {
            throw new IllegalArgumentException("a Redis URL starts with redis:// or rediss:// (TLS), not '" + url
                    + "'");
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("a Redis URL needs a host: redis://HOST:PORT, not '" + url + "'");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("a Redis URL takes no query or fragment: '" + url + "'");
        }
        int database = 0;
        String path = uri.getPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            try {
                database = Integer.parseInt(path.substring(1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("the path of a Redis URL is the database number (/0, /1...), not '"
                        + path + "'");
            }
        }
        String username = null;
        String password = null;
        String userInfo = uri.getRawUserInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
            username = user.isEmpty() ? null : decode(user);
            password = colon < 0 ? null : decode(userInfo.substring(colon + 1));
        }
        if (password == null || password.isEmpty()) {
            password = passwordFallback == null || passwordFallback.isEmpty() ? null : passwordFallback;
        }
        String host = uri.getHost().startsWith("[") ? uri.getHost().substring(1, uri.getHost().length() - 1)
                : uri.getHost();
        return new RedisEndpoint("rediss".equals(scheme), host, uri.getPort() < 0 ? DEFAULT_PORT
                : uri.getPort(), database, username, password);
    }

    private static String decode(String part) {
        return URLDecoder.decode(part.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** Lettuce's form of it. */
    RedisURI toRedisUri() {
        RedisURI.Builder builder = RedisURI.Builder.redis(host, port).withDatabase(database).withSsl(tls);
        if (password != null) {
            if (username != null) {
                builder.withAuthentication(username, password);
            } else {
                builder.withPassword(password.toCharArray());
            }
        }
        return builder.build();
    }

    /** The URL without the password, for logs and the API. */
    @Override
    public String toString() {
        String host = this.host.contains(":") ? "[" + this.host + "]" : this.host;
        String user = username == null ? (password == null ? "" : ":***@") : username + (password == null ? "@"
                : ":***@");
        return (tls ? "rediss://" : "redis://") + user + host + ":" + port + "/" + database;
    }
}
