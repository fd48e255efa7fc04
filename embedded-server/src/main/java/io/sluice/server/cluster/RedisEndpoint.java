package io.sluice.server.cluster;

import io.lettuce.core.RedisURI;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Where the cluster's Redis (or Valkey) is: what {@code --redis redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]}
 * says. {@code rediss://} connects with TLS (the server's certificate checked against the JVM's trust
 * store). The password comes from the URL, else from {@code SLUICE_REDIS_PASSWORD}, so it need not appear
 * in a process list. {@link #toString()} never shows it, and neither does a message about a URL that is wrong: the
 * user and password are everything between {@code ://} and the URL's last {@code @} (a password may hold {@code @},
 * {@code '}, {@code /} or {@code :} as they are, or %-escaped), taken off before anything else is read, and a
 * message shows {@code ***} in their place.
 *
 * <p>A Redis Cluster is {@code redis-cluster://[[USER]:PASSWORD@]HOST[:PORT][,HOST[:PORT]...]} (TLS:
 * {@code rediss-cluster://}): seed nodes, any of the cluster's, from which the client learns the whole topology
 * (docs/manual/cluster.md, "Redis Cluster"). One user and password for every node; no database (a Redis Cluster
 * has only database 0).
 *
 * @param tls      {@code rediss://} or {@code rediss-cluster://}
 * @param host     host name or address (of the first seed, for a Redis Cluster)
 * @param port     6379 unless given
 * @param database the logical database, 0 unless given
 * @param username an ACL user, or null for the default user
 * @param password null for none
 * @param seeds    a Redis Cluster's seed nodes (the first is {@code host:port}); empty for one Redis
 */
public record RedisEndpoint(boolean tls, String host, int port, int database, String username, String password,
                            List<Seed> seeds) {
    public static final int DEFAULT_PORT = 6379;
    /** The environment variable that carries the password when the URL does not. */
    public static final String PASSWORD_VARIABLE = "SLUICE_REDIS_PASSWORD";
    private static final String CLUSTER = "-cluster";

    /** One seed node of a Redis Cluster. */
    public record Seed(String host, int port) {
        @Override
        public String toString() {
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    /** One Redis (not a cluster). */
    public RedisEndpoint(boolean tls, String host, int port, int database, String username, String password) {
        this(tls, host, port, database, username, password, List.of());
    }

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
        seeds = List.copyOf(seeds);
        if (!seeds.isEmpty() && (database != 0 || !seeds.get(0).equals(new Seed(host, port)))) {
            throw new IllegalArgumentException("a Redis Cluster has database 0 only, and its first seed is host:port");
        }
    }

    /** A Redis Cluster (seeds given), not one Redis. */
    public boolean cluster() {
        return !seeds.isEmpty();
    }

    /**
     * @param url              {@code redis://HOST[:PORT][/DB]} or {@code rediss://...}, optionally with
     *                         {@code [USER]:PASSWORD@} before the host; or a Redis Cluster's seeds,
     *                         {@code redis-cluster://HOST[:PORT][,HOST[:PORT]...]} ({@code rediss-cluster://})
     * @param passwordFallback the password to use when the URL has none (the environment variable's value),
     *                         or null
     * @throws IllegalArgumentException saying what is wrong with the URL, the user and password left out
     */
    public static RedisEndpoint parse(String url, String passwordFallback) {
        String trimmed = url.trim();
        int schemeEnd = trimmed.indexOf("://");
        int at = schemeEnd < 0 ? -1 : trimmed.lastIndexOf('@');
        if (at < schemeEnd + 3) {
            return parseAny(trimmed, null, passwordFallback);
        }
        // Messages about the URL end up in a terminal or the journal, which more people read than the configuration
        // file: they quote it with *** for the user and password, and leave off any cause that could hold them.
        String authority = trimmed.substring(at + 1);
        String bare = trimmed.substring(0, schemeEnd + 3) + authority;
        String shown = trimmed.substring(0, schemeEnd + 3) + "***@" + authority;
        Credentials credentials;
        try {
            credentials = Credentials.of(trimmed.substring(schemeEnd + 3, at));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the user or password of a Redis URL has a broken %-escape (write %25 "
                    + "for a %): '" + shown + "'");
        }
        try {
            return parseAny(bare, credentials, passwordFallback);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage().replace(bare, shown));
        }
    }

    /** The user and password a URL gives, %-escapes undone; either may be null. */
    private record Credentials(String username, String password) {
        /** {@code [USER][:PASSWORD]}: the first colon ends the user. */
        static Credentials of(String userInfo) {
            int colon = userInfo.indexOf(':');
            String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
            return new Credentials(user.isEmpty() ? null : decode(user),
                    colon < 0 ? null : decode(userInfo.substring(colon + 1)));
        }
    }

    /**
     * @param url         the URL without its user and password
     * @param credentials the user and password it had, or null for none
     */
    private static RedisEndpoint parseAny(String url, Credentials credentials, String passwordFallback) {
        int schemeEnd = url.indexOf("://");
        String scheme = schemeEnd < 0 ? "" : url.substring(0, schemeEnd);
        if (!scheme.equals("redis" + CLUSTER) && !scheme.equals("rediss" + CLUSTER)) {
            return parseOne(url, credentials, passwordFallback);
        }
        // Each seed is read as a one-Redis URL with the same user and password, so the rules are the same.
        String single = scheme.substring(0, scheme.length() - CLUSTER.length()) + "://";
        String rest = url.substring(schemeEnd + 3);
        int pathAt = rest.indexOf('/');
        String authority = pathAt < 0 ? rest : rest.substring(0, pathAt);
        String path = pathAt < 0 ? "" : rest.substring(pathAt);
        List<Seed> seeds = new ArrayList<>();
        RedisEndpoint first = null;
        for (String host : authority.split(",", -1)) {
            if (host.isBlank()) {
                throw new IllegalArgumentException("a Redis Cluster URL lists seeds as " + scheme
                        + "://HOST:PORT[,HOST:PORT...], not '" + url + "'");
            }
            RedisEndpoint seed;
            try {
                seed = parseOne(single + host + path, credentials, passwordFallback);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(e.getMessage().replace(single + host + path, url)
                        + " (Redis Cluster seed '" + host + "')");
            }
            if (seed.database() != 0) {
                throw new IllegalArgumentException("a Redis Cluster has only database 0, not '" + url + "'");
            }
            first = first == null ? seed : first;
            seeds.add(new Seed(seed.host(), seed.port()));
        }
        return new RedisEndpoint(first.tls(), first.host(), first.port(), 0, first.username(), first.password(),
                seeds);
    }

    private static RedisEndpoint parseOne(String url, Credentials credentials, String passwordFallback) {
        URI uri;
        try {
            uri = new URI(url.trim());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a Redis URL: '" + url + "' (" + e.getReason() + ")");
        }
        String scheme = uri.getScheme();
        if (scheme == null || !scheme.equals("redis") && !scheme.equals("rediss")) {
            throw new IllegalArgumentException("a Redis URL starts with redis:// or rediss:// (TLS), or"
                    + " redis-cluster:// or rediss-cluster:// for a Redis Cluster, not '" + url + "'");
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
        String username = credentials == null ? null : credentials.username();
        String password = credentials == null ? null : credentials.password();
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

    /** Lettuce's form of it (of the first seed, for a Redis Cluster). */
    RedisURI toRedisUri() {
        return toRedisUri(host, port);
    }

    /** Lettuce's form of each seed of a Redis Cluster. */
    List<RedisURI> seedUris() {
        return seeds.stream().map(seed -> toRedisUri(seed.host(), seed.port())).toList();
    }

    private RedisURI toRedisUri(String host, int port) {
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
        String user = username == null ? (password == null ? "" : ":***@") : username + (password == null ? "@"
                : ":***@");
        if (cluster()) {
            return (tls ? "rediss" : "redis") + CLUSTER + "://" + user
                    + seeds.stream().map(Seed::toString).collect(Collectors.joining(","));
        }
        return (tls ? "rediss://" : "redis://") + user + new Seed(host, port) + "/" + database;
    }
}
