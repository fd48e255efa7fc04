package io.sluice.server.front;

import io.sluice.engine.Decision;
import io.sluice.engine.Reason;
import io.sluice.engine.RequestClass;
import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.check.BrowserPasses;
import io.sluice.engine.check.ProofOfWork;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.BrowserCheck;
import java.time.InstantSource;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Writes a refusal the way docs/architecture.md ("Refusals") asks: the rule's status, {@code Retry-After}
 * where knowable, {@code Cache-Control: no-store}, and a body that explains itself: {@code application/problem+json}
 * for clients that ask for JSON, an HTML page for everyone else.
 */
final class RefusalResponder {
    private static final Map<Reason, String> TITLES = Map.ofEntries(
            Map.entry(Reason.PAUSED, "Service paused"),
            Map.entry(Reason.BANNED, "Access denied"),
            Map.entry(Reason.CRAWLER_SPACING, "Crawling too fast"),
            Map.entry(Reason.CRAWLERS_BUSY, "Crawlers are busy"),
            Map.entry(Reason.HIT_STACK, "Too many requests"),
            Map.entry(Reason.ROUTE_LIMIT, "Too many requests to this page"),
            Map.entry(Reason.ADDRESS_HIT_STACK, "Too many requests from your network"),
            Map.entry(Reason.CLIENT_CONCURRENCY, "Too many parallel requests"),
            Map.entry(Reason.ADDRESS_CONCURRENCY, "Too many parallel requests from your network"),
            Map.entry(Reason.LOAD, "Server busy"),
            Map.entry(Reason.CHALLENGE, "Checking your browser"),
            Map.entry(Reason.PASS_REQUIRED, "Load a page first"),
            Map.entry(Reason.NETWORK_BUDGET, "Too many requests from your network"),
            Map.entry(Reason.NETWORK_CONCURRENCY, "Too many requests in progress from your network"),
            Map.entry(Reason.CATEGORY, "Not served to agents of this kind"),
            Map.entry(Reason.TRAP, "Disallowed by robots.txt"));

    private final Supplier<String> infoUrl;
    private final ThrottleEngine engine;
    private final InstantSource clock;

    RefusalResponder(ThrottleEngine engine, InstantSource clock) {
        this.engine = engine;
        this.clock = clock;
        this.infoUrl = () -> engine.policy().refusal().infoUrl();
    }

    void refuse(Request request, Response response, Callback callback, Decision.Refuse refusal) {
        response.setStatus(refusal.status());
        HttpFields.Mutable headers = response.getHeaders();
        headers.put(HttpHeader.CACHE_CONTROL, "no-store");
        if (refusal.retryAfterSeconds() >= 0) {
            headers.put(HttpHeader.RETRY_AFTER, Long.toString(refusal.retryAfterSeconds()));
        }
        if (refusal.client().requestClass() == RequestClass.BOT) {
            RateLimitHeaders.apply(headers, refusal.rateLimit());
        }
        if (refusal.dropPass()) {
            headers.add(HttpHeader.SET_COOKIE, BrowserPasses.COOKIE + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax");
        }
        String body;
        if (refusal.reason() == Reason.CHALLENGE && !wantsJson(request)) {
            // the interstitial: no cache, no search engine and no archive may keep it as the page
            headers.put("X-Robots-Tag", "noindex");
            headers.put(HttpHeader.CONTENT_TYPE, "text/html;charset=utf-8");
            body = interstitial(request, refusal);
        } else if (wantsJson(request)) {
            headers.put(HttpHeader.CONTENT_TYPE, "application/problem+json");
            body = problemJson(refusal);
        } else {
            headers.put(HttpHeader.CONTENT_TYPE, "text/html;charset=utf-8");
            body = html(refusal);
        }
        Content.Sink.write(response, true, body, callback);
    }

    /** The interstitial, with a proof-of-work issued for this client, this page and the refusal's difficulty. */
    private String interstitial(Request request, Decision.Refuse refusal) {
        BrowserCheck check = engine.policy().browserCheck();
        String back = PassEndpoint.sameSitePath(request.getHttpURI().getPathQuery());
        ProofOfWork.Challenge challenge = engine.proofOfWork().issue(IpAddress.parse(refusal.client().ip()),
                refusal.client().userAgent(), back, refusal.challengeBits(), clock.millis());
        return Interstitial.page(challenge, PassEndpoint.PATH,
                check.noScript() ? check.noScriptWaitSeconds() * 1000L : -1, infoUrl.get());
    }

    static boolean wantsJson(Request request) {
        HttpField accept = request.getHeaders().getField(HttpHeader.ACCEPT);
        if (accept == null) {
            return false;
        }
        String value = accept.getValue().toLowerCase(Locale.ROOT);
        return value.contains("json") && !value.contains("text/html");
    }

    private String problemJson(Decision.Refuse refusal) {
        StringBuilder json = new StringBuilder(256).append('{');
        json.append("\"type\":\"https://sluice.dev/problems/").append(refusal.reason().name().toLowerCase(Locale.ROOT))
                .append("\",\"title\":\"").append(jsonEscape(title(refusal.reason())))
                .append("\",\"status\":").append(refusal.status())
                .append(",\"reason\":\"").append(refusal.reason().name())
                .append("\",\"detail\":\"").append(jsonEscape(refusal.detail() == null ? "" : refusal.detail()))
                .append('"');
        if (refusal.retryAfterSeconds() >= 0) {
            json.append(",\"retryAfter\":").append(refusal.retryAfterSeconds());
        }
        String info = infoUrl.get();
        if (info != null && !info.isBlank()) {
            json.append(",\"info\":\"").append(jsonEscape(info)).append('"');
        }
        return json.append('}').toString();
    }

    private String html(Decision.Refuse refusal) {
        String title = htmlEscape(title(refusal.reason()));
        StringBuilder page = new StringBuilder(1024)
                .append("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
                .append(title).append("</title><style>body{font-family:sans-serif;max-width:40em;margin:4em auto;"
                        + "padding:0 1em;color:#222}code{background:#eee;padding:0 .3em}</style></head><body><h1>")
                .append(title).append("</h1><p>")
                .append(htmlEscape(refusal.detail() == null ? "This request was refused." : refusal.detail()))
                .append("</p>");
        if (refusal.retryAfterSeconds() >= 0) {
            page.append("<p>Please come back in ").append(refusal.retryAfterSeconds()).append(" seconds.</p>");
        }
        String info = infoUrl.get();
        if (info != null && !info.isBlank()) {
            page.append("<p>More information: <a href=\"").append(htmlEscape(info)).append("\">")
                    .append(htmlEscape(info)).append("</a></p>");
        }
        return page.append("<p><small>Reason: <code>").append(refusal.reason().name())
                .append("</code></small></p></body></html>").toString();
    }

    private static String title(Reason reason) {
        return TITLES.getOrDefault(reason, "Request refused");
    }

    static String htmlEscape(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    static String jsonEscape(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
