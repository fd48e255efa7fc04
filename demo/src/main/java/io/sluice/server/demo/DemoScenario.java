package io.sluice.server.demo;

import io.sluice.engine.UserAgentClassifier;
import io.sluice.engine.classify.CrawlerListClassifier;
import io.sluice.engine.policy.Policy;
import io.sluice.server.change.PolicyChanges;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import org.eclipse.jetty.client.BufferingResponseListener;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpCookieStore;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The demo's story, on a loop an operator recognises, one {@link Phase} after the other: a quiet spell (people
 * browsing pages with their stylesheet, script and images; search engines crawling politely), then a site
 * copier from several addresses rotating browsers' user agents (an agent ban misses it; its addresses' ban does
 * not), then a storm of aggressive crawlers, then a scraper fleet (hundreds of addresses with browsers' user agents,
 * each under every per-client limit: the browser check is what stops it), then the upstream turning slow (requests
 * pile up in flight: the load rules and pausing matter). The quiet visitors keep coming through every phase. Real
 * HTTP, each client from its own loopback address (Linux routes all of 127.0.0.0/8 to the loopback device), every
 * request sent to the next front end in turn, as a load balancer would spread it over a cluster's nodes.
 *
 * <p>Deterministic apart from timing: the cast, their addresses, user agents and paths are fixed, and the phase
 * is a function of the time since start ({@link #phaseAt}).
 */
public final class DemoScenario implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(DemoScenario.class.getName());
    /**
     * How long each phase lasts in the demo: the whole loop takes five times this (3 minutes, as when it had four
     * phases of 45 s).
     */
    public static final Duration DEFAULT_PHASE = Duration.ofSeconds(36);

    /** The loop, in order. */
    public enum Phase {
        QUIET("people browsing, search engines crawling politely"),
        SITE_COPIER("a site copier arrives from 127.0.2.1-6 with rotating browser user agents: ban 127.0.2.0/29"),
        CRAWLER_STORM("a storm of aggressive crawlers from 127.0.3.1-12, each far faster than the crawler spacing"),
        SCRAPER_FLEET("a scraper fleet: " + FLEET_NETWORKS * FLEET_HOSTS + " addresses in 127.1.0.0/22 with current "
                + "browser user agents, each under every per-client limit, harvesting the costly search page: see "
                + "the browser check's line (under pressure: the fleet asked, the people passed), the refusals chart "
                + "(browser check) and the Networks tab (its /24s, by the pages served before the pressure)"),
        SLOW_UPSTREAM("the upstream turns slow (0.3-1.2 s a request): requests pile up in flight");

        private final String story;

        Phase(String story) {
            this.story = story;
        }

        public String story() {
            return story;
        }
    }

    /**
     * Someone sending requests: every {@code periodMillis} one visit (a page, or a page and what a browser fetches
     * with it), from the next of its addresses with the next of its user agents, during {@code phases}.
     */
    public record Visitor(String name, List<String> addresses, List<String> userAgents, Set<Phase> phases,
                          long periodMillis, LongFunction<List<String>> visit, boolean person) {

        /** A visitor that runs no script: the browser check's interstitial stops it. */
        public Visitor(String name, List<String> addresses, List<String> userAgents, Set<Phase> phases,
                       long periodMillis, LongFunction<List<String>> visit) {
            this(name, addresses, userAgents, phases, periodMillis, visit, false);
        }
    }

    /** The scraper fleet: this many /24s of 127.1.0.0/22, this many addresses in each. */
    static final int FLEET_NETWORKS = 4;
    static final int FLEET_HOSTS = 64;
    /**
     * The fleet's pace (ms between its requests, each from the next address): 100 pages a second, each address one
     * every 2.56 s (about issue 46's fleet), 6 in a hit stack's 15 s where 10 are allowed; a /24 375, over its
     * network budget (200). Two of three are searches (150-450 ms of the site's work): about 20 requests in flight,
     * over the load limit (15) within a second, which is the browser check's pressure.
     */
    static final long FLEET_PERIOD_MILLIS = 10;

    private static final Set<Phase> ALWAYS = EnumSet.allOf(Phase.class);
    private static final String FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
    private static final String CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like "
            + "Gecko) Chrome/126.0.0.0 Safari/537.36";
    private static final String SAFARI = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, "
            + "like Gecko) Version/17.5 Safari/605.1.15";
    private static final String EDGE = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like "
            + "Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0";
    private static final String ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like "
            + "Gecko) Chrome/126.0.0.0 Mobile Safari/537.36";
    private static final String IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
            + "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";
    /** What scraper fleets send today: the browsers' newest user agents, the most common first. */
    private static final List<String> CURRENT_BROWSERS = List.of(
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 "
                    + "Safari/537.36",
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
                    + "Chrome/142.0.0.0 Safari/537.36",
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 "
                    + "Safari/537.36 Edg/142.0.0.0",
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
                    + "Version/26.0 Safari/605.1.15",
            "Mozilla/5.0 (X11; Linux x86_64; rv:145.0) Gecko/20100101 Firefox/145.0",
            "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Mobile "
                    + "Safari/537.36");

    /** The cast. */
    public static List<Visitor> cast() {
        List<Visitor> cast = new ArrayList<>();
        cast.add(new Visitor("browser (Firefox)", List.of("127.0.0.11"), List.of(FIREFOX), ALWAYS, 2_500,
                DemoScenario::browsing, true));
        cast.add(new Visitor("browser (Chrome)", List.of("127.0.0.12"), List.of(CHROME), ALWAYS, 3_000,
                n -> browsing(n + 1), true));
        cast.add(new Visitor("browser (Safari)", List.of("127.0.0.13"), List.of(SAFARI), ALWAYS, 3_500,
                n -> browsing(n + 2), true));
        cast.add(new Visitor("browser (phone)", List.of("127.0.0.14"), List.of(IPHONE), ALWAYS, 4_000,
                n -> browsing(n + 3), true));
        // The crawler spacing allows one request per crawler every 30 s: polite crawlers keep to it.
        cast.add(new Visitor("Googlebot", List.of("127.0.0.21"),
                List.of("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"), ALWAYS, 31_000,
                DemoScenario::crawling));
        cast.add(new Visitor("bingbot", List.of("127.0.0.22"),
                List.of("Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"), ALWAYS, 37_000,
                n -> crawling(n + 100)));
        cast.add(new Visitor("RSS reader", List.of("127.0.0.31"),
                List.of("Feedly/1.0 (+http://www.feedly.com/fetcher.html)"), ALWAYS, 5_000, n -> List.of("/feed.xml")));
        cast.add(new Visitor("API client", List.of("127.0.0.32"), List.of("python-requests/2.32.3"), ALWAYS, 1_500,
                n -> List.of("/api/items")));
        List<String> copierAddresses = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            copierAddresses.add("127.0.2." + i);
        }
        cast.add(new Visitor("site copier", copierAddresses, List.of(FIREFOX, CHROME, SAFARI, EDGE, ANDROID, IPHONE,
                "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0"),
                EnumSet.of(Phase.SITE_COPIER), 8, DemoScenario::copying));
        // As the crawlers send them: the list knows DotBot and YandexBot by their URLs, not by their names.
        String[] storm = {"AhrefsBot/7.0", "SemrushBot/7~bl", "MJ12bot/v1.4.8",
            "DotBot/1.2; +https://opensiteexplorer.org/dotbot; help@moz.com", "PetalBot", "Bytespider", "GPTBot/1.2",
            "CCBot/2.0", "ClaudeBot/1.0", "Amazonbot/0.1", "YandexBot/3.0; +http://yandex.com/bots",
            "Baiduspider/2.0"};
        for (int i = 0; i < storm.length; i++) {
            int offset = i * 17;
            String name = "crawler storm (" + storm[i].replaceAll("/.*", "") + ")";
            cast.add(new Visitor(name, List.of("127.0.3." + (i + 1)),
                    List.of("Mozilla/5.0 (compatible; " + storm[i] + ")"), EnumSet.of(Phase.CRAWLER_STORM), 400,
                    n -> crawling(n + offset)));
        }
        cast.add(new Visitor("scraper fleet", fleetAddresses(), CURRENT_BROWSERS, EnumSet.of(Phase.SCRAPER_FLEET),
                FLEET_PERIOD_MILLIS, DemoScenario::scraping));
        return cast;
    }

    /** 127.1.N.1-64 for each /24 N of the fleet, the networks interleaved: each /24 sends a quarter of the pages. */
    static List<String> fleetAddresses() {
        List<String> addresses = new ArrayList<>(FLEET_NETWORKS * FLEET_HOSTS);
        for (int host = 1; host <= FLEET_HOSTS; host++) {
            for (int network = 0; network < FLEET_NETWORKS; network++) {
                addresses.add("127.1." + network + "." + host);
            }
        }
        return addresses;
    }

    /**
     * The demo's crawlers send from loopback addresses that no crawler operator publishes: the demo's policy declares
     * them verified there (through the policy's one writer, so a cluster's nodes all take it), as an operator would a
     * partner's crawler, so the demo shows crawler spacing and not only claimed crawlers treated as bots.
     */
    public static void verifyCrawlers(PolicyChanges changes) {
        Map<String, List<String>> cast = crawlerAddresses(CrawlerListClassifier.bundled(),
                changes.live().classification());
        changes.applyIfChanged(new PolicyChanges.Author("demo", null), "crawlers.verify",
                "the demo's crawlers are verified at their loopback addresses", p -> {
                    Policy.Crawlers crawlers = p.crawlers();
                    Map<String, List<String>> ranges = new LinkedHashMap<>(crawlers.verifiedRanges());
                    ranges.putAll(cast);
                    return p.withCrawlers(new Policy.Crawlers(crawlers.perCrawlerSeconds(),
                            crawlers.allCrawlersSeconds(), crawlers.verifySearchEngines(), ranges));
                }, Policy::crawlers);
    }

    /**
     * The cast's crawlers by their crawler-list names, with the loopback addresses they send from: the demo's policy
     * declares them as verified ({@code crawlers.verifiedRanges}), as an operator would a partner's crawler, since no
     * real crawler's published range is on this machine. Without it every one of them would be a claimed crawler,
     * i.e. a bot (docs/manual/classify.md, "Crawler verification").
     */
    public static Map<String, List<String>> crawlerAddresses(UserAgentClassifier classifier,
                                                             Policy.Classification classification) {
        Map<String, List<String>> addresses = new TreeMap<>();
        for (Visitor visitor : cast()) {
            for (String userAgent : visitor.userAgents()) {
                String name = classifier.classify(userAgent, classification).crawlerName();
                if (name != null) {
                    List<String> known = addresses.computeIfAbsent(name, k -> new ArrayList<>());
                    visitor.addresses().stream().filter(a -> !known.contains(a)).forEach(known::add);
                }
            }
        }
        return addresses;
    }

    /** A person reading: every third visit the gallery page with its stylesheet, script and images. */
    static List<String> browsing(long n) {
        if (n % 3 != 0) {
            return List.of("/page/" + (n * 7) % DemoSite.PAGES);
        }
        List<String> paths = new ArrayList<>(List.of("/gallery", "/static/site.css", "/static/app.js"));
        for (int i = 0; i < DemoSite.GALLERY_IMAGES; i++) {
            paths.add("/img/" + i + ".svg");
        }
        return paths;
    }

    /** A scraper harvesting the site: two searches (the costly page), then a page, and so on. */
    static List<String> scraping(long n) {
        return List.of(n % 3 == 2 ? "/page/" + (n * 13) % DemoSite.PAGES
                : "/search?q=" + SEARCHES.get((int) (n % SEARCHES.size())) + "&page=" + (n / 3) % 20);
    }

    private static final List<String> SEARCHES = List.of("sluice", "weir", "lock", "canal", "flood", "gate", "dam");

    static List<String> crawling(long n) {
        return List.of("/page/" + n % DemoSite.PAGES);
    }

    /** Every page in order, and every image: a copy of the whole site. */
    static List<String> copying(long n) {
        return List.of(n % 4 == 3 ? "/img/" + (n / 4) % DemoSite.GALLERY_IMAGES + ".svg"
                : "/page/" + (n / 4 * 3 + n % 4) % DemoSite.PAGES);
    }

    /** The phase {@code elapsed} after the start. */
    public static Phase phaseAt(Duration elapsed, Duration phaseLength, Phase first) {
        Phase[] phases = Phase.values();
        long index = elapsed.toMillis() / phaseLength.toMillis() + first.ordinal();
        return phases[(int) (index % phases.length)];
    }

    private final List<URI> fronts;
    private final DemoSite site;
    private final Duration phaseLength;
    private final Phase first;
    private final long startNanos = System.nanoTime();
    private final QueuedThreadPool executor = new QueuedThreadPool(128, 4);
    private final ScheduledExecutorService scheduler;
    // A person keeps cookies (its pass, bound to its user agent), so each person's address has a client of its own,
    // bound to it, with a selector thread of its own. Everyone else runs no script and keeps no cookie: they share
    // one client, each request leaving from its own address (FromAddress), so the fleet's 256 addresses take one
    // selector thread, not 256.
    private final Map<String, HttpClient> persons = new LinkedHashMap<>();
    private final HttpClient others;
    /** Each other address's way out; none where it cannot be bound (not Linux): from the default address then. */
    private final Map<String, FromAddress> from = new HashMap<>();
    private final Map<String, AtomicLong> statuses = new ConcurrentHashMap<>();
    private final AtomicLong nextFront = new AtomicLong();
    private volatile Phase announced;

    private DemoScenario(List<URI> fronts, DemoSite site, Duration phaseLength, Phase first, List<Visitor> cast)
            throws Exception {
        if (fronts.isEmpty() || phaseLength.toMillis() <= 0) {
            throw new IllegalArgumentException("the demo needs a front end and a positive phase length");
        }
        this.fronts = List.copyOf(fronts);
        this.site = site;
        this.phaseLength = phaseLength;
        this.first = first;
        executor.setName("sluice-demo-clients");
        executor.setReservedThreads(0);
        executor.setDaemon(true);
        executor.start();
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "sluice-demo-scenario");
            thread.setDaemon(true);
            return thread;
        });
        others = others();
        for (Visitor visitor : cast) {
            for (String address : visitor.addresses()) {
                if (visitor.person() && !persons.containsKey(address)) {
                    persons.put(address, person(address));
                } else if (!visitor.person() && !from.containsKey(address) && canBind(address)) {
                    from.put(address, new FromAddress(address));
                }
            }
            AtomicLong visits = new AtomicLong();
            scheduler.scheduleAtFixedRate(() -> visit(visitor, visits), 100, visitor.periodMillis(),
                    TimeUnit.MILLISECONDS);
        }
        scheduler.scheduleAtFixedRate(this::announce, 0, 100, TimeUnit.MILLISECONDS);
    }

    /**
     * Starts the story against {@code fronts} (requests spread over them in turn).
     *
     * @param site the demo site behind them, told to turn slow in {@link Phase#SLOW_UPSTREAM}; null: left alone
     */
    public static DemoScenario start(List<URI> fronts, DemoSite site, Duration phaseLength) throws Exception {
        return new DemoScenario(fronts, site, phaseLength, Phase.QUIET, cast());
    }

    /** {@link #start} from {@code first} on (a test need not wait through the quiet spell). */
    public static DemoScenario start(List<URI> fronts, DemoSite site, Duration phaseLength, Phase first)
            throws Exception {
        return new DemoScenario(fronts, site, phaseLength, first, cast());
    }

    /** The phase now. */
    public Phase phase() {
        return phaseAt(Duration.ofNanos(System.nanoTime() - startNanos), phaseLength, first);
    }

    /**
     * Responses so far, keyed {@code "visitor status"} for pages and {@code "visitor asset status"} for what a page
     * loads with it (stylesheet, script, images: {@link DemoSite#asset}); status 0: no response. A person's page that
     * was the browser check's interstitial counts as the page it answered its way to.
     */
    public Map<String, Long> statusCounts() {
        Map<String, Long> copy = new TreeMap<>();
        statuses.forEach((k, v) -> copy.put(k, v.get()));
        return copy;
    }

    private void announce() {
        Phase now = phase();
        if (now != announced) {
            announced = now;
            if (site != null) {
                site.slow(now == Phase.SLOW_UPSTREAM);
            }
            LOG.log(System.Logger.Level.INFO, "demo: " + now.name().toLowerCase(Locale.ROOT)
                    .replace('_', ' ') + ": " + now.story());
        }
    }

    private void visit(Visitor visitor, AtomicLong visits) {
        if (!visitor.phases().contains(phase())) {
            return;
        }
        long n = visits.getAndIncrement();
        String address = visitor.addresses().get((int) (n % visitor.addresses().size()));
        String agent = visitor.userAgents().get((int) (n % visitor.userAgents().size()));
        HttpClient client = visitor.person() ? persons.get(address) : others;
        FromAddress transport = visitor.person() ? null : from.get(address);
        for (String path : visitor.visit().apply(n)) {
            URI front = fronts.get((int) (nextFront.getAndIncrement() % fronts.size()));
            String kind = DemoSite.asset(path) ? " asset " : " ";
            send(client, transport, visitor, agent, front.resolve(path), kind, true);
        }
    }

    /**
     * One request, its status counted; a person whose page was the browser check's interstitial answers it as a
     * browser would (once) and counts the page it is then sent on to.
     */
    private void send(HttpClient client, FromAddress transport, Visitor visitor, String agent, URI target, String kind,
                      boolean mayAnswer) {
        Request request = client.newRequest(target);
        if (transport != null) {
            transport.apply(request);
        }
        request.headers(h -> h.put(HttpHeader.USER_AGENT, agent))
                .timeout(10, TimeUnit.SECONDS)
                .send(new BufferingResponseListener(64 * 1024) {
                    @Override
                    public void onComplete(Result result) {
                        int status = result.getResponse() == null ? 0 : result.getResponse().getStatus();
                        String answer = mayAnswer && visitor.person() && status == 403
                                ? PersonsBrowser.answer(getContentAsString()) : null;
                        if (answer != null) {
                            send(client, transport, visitor, agent, target.resolve(answer), kind, false);
                            return;
                        }
                        statuses.computeIfAbsent(visitor.name() + kind + status, k -> new AtomicLong())
                                .incrementAndGet();
                    }
                });
    }

    private HttpClient person(String address) throws Exception {
        HttpClient client = client();
        if (canBind(address)) {
            client.setBindAddress(new InetSocketAddress(address, 0));
        }
        client.start();
        return client;
    }

    private HttpClient others() throws Exception {
        HttpClient client = client();
        client.setHttpCookieStore(new HttpCookieStore.Empty());
        client.start();
        return client;
    }

    private HttpClient client() {
        HttpClient client = new HttpClient();
        client.setExecutor(executor);
        client.setUserAgentField(null);
        // as a browser does per host (for the shared client: per address, each its own destination); the rest wait
        client.setMaxConnectionsPerDestination(6);
        return client;
    }

    private static boolean canBind(String ip) {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(InetAddress.getByName(ip), 0));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        List<HttpClient> clients = new ArrayList<>(persons.values());
        clients.add(others);
        for (HttpClient client : clients) {
            try {
                client.stop();
            } catch (Exception e) {
                // best effort: the demo is going away
            }
        }
        try {
            executor.stop();
        } catch (Exception e) {
            // best effort
        }
        if (site != null) {
            site.slow(false);
        }
    }
}
