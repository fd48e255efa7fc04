package io.sluice.benchmarks;

import io.sluice.engine.Request;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;

/** Distinct synthetic clients: random public-looking IPv4 peers with a handful of browser user agents. */
final class Clients {

    static final String[] USER_AGENTS = {
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 "
            + "Safari/537.36",
        "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 "
            + "Safari/605.1.15",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
            + "Version/18.1 Mobile/15E148 Safari/604.1",
    };

    private Clients() {
    }

    /**
     * What a browser asks for when it opens a page: the page, then its stylesheet, script and images. Used by
     * the route-weight benchmark (a quarter pages, the rest assets).
     */
    static final String[] PAGE_AND_ASSETS = {"/articles/4711", "/static/site.css", "/static/app.js", "/img/a.png"};

    /** {@code count} requests for {@code /} from distinct (IP, user agent) clients. */
    static Request[] requests(Random random, int count) {
        return requests(random, count, new String[] {"/"});
    }

    /** {@code count} requests from distinct (IP, user agent) clients, each for one of {@code paths} at random. */
    static Request[] requests(Random random, int count, String[] paths) {
        Set<String> seen = new HashSet<>();
        Request[] out = new Request[count];
        int i = 0;
        while (i < count) {
            String ip = (1 + random.nextInt(223)) + "." + random.nextInt(256) + "." + random.nextInt(256) + "."
                    + (1 + random.nextInt(254));
            String ua = USER_AGENTS[random.nextInt(USER_AGENTS.length)];
            if (seen.add(ip + ua)) {
                out[i++] = Request.get(ip, ua, paths[random.nextInt(paths.length)]);
            }
        }
        return out;
    }
}
