package io.sluice.server.front;

import io.sluice.engine.ThrottleEngine;
import io.sluice.engine.UserAgents;
import io.sluice.engine.check.BrowserPasses;
import io.sluice.engine.check.ProofOfWork;
import io.sluice.engine.net.IpAddress;
import io.sluice.engine.policy.BrowserCheck;
import java.time.InstantSource;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * {@code GET /.sluice/pass?c=TOKEN&n=NONCE&r=RETURN}: where the interstitial sends a browser with its answer. A right
 * answer (the proof-of-work, or the no-JavaScript path's wait) earns the pass cookie and a redirect back to the page
 * asked for; anything else a 403 that says so and links back. Answered by the front end itself, never forwarded, and
 * never from shared state: the token carries what it was issued for, signed.
 *
 * <p>The page it sends back to is the one the token was issued for (the signature covers it), and only ever a path on
 * this site: never an open redirect.
 */
final class PassEndpoint {

    /** Every path Sluice answers itself starts with this; the lean path hands them to Jetty's. */
    static final String PREFIX = "/.sluice/";
    static final String PATH = PREFIX + "pass";
    /** No parameter of a right answer is longer: a longer one is refused before any work. */
    private static final int MAX_PARAMETER = 2_048;
    /** Marks a request held once for the no-JavaScript path's wait. */
    private static final String HELD = PassEndpoint.class.getName() + ".held";

    /** Writes the access log's line for an answered request. */
    @FunctionalInterface
    interface Log {
        void log(Request request, Response response, int status, String ip, String decision);
    }

    private final ThrottleEngine engine;
    private final InstantSource clock;

    PassEndpoint(ThrottleEngine engine, InstantSource clock) {
        this.engine = engine;
        this.clock = clock;
    }

    void answer(Request request, Response response, Callback callback, Log log) {
        io.sluice.engine.Request asked = EngineRequests.of(Request.getRemoteAddr(request), request.getHeaders(),
                engine.forwardedHeader(), request.getMethod(), PATH, null);
        IpAddress address = engine.clientAddress(asked);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.getHeaders().put("X-Robots-Tag", "noindex");
        if (!"GET".equals(request.getMethod()) && !"HEAD".equals(request.getMethod())) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
            write(request, response, callback, HttpStatus.METHOD_NOT_ALLOWED_405, "/", "Only GET is answered here.");
            log.log(request, response, HttpStatus.METHOD_NOT_ALLOWED_405, address.toString(), "PASS_REFUSED");
            return;
        }
        Fields query = Request.extractQueryParameters(request);
        String token = parameter(query, "c");
        String nonce = parameter(query, "n");
        String back = parameter(query, "r");
        String returnPath = sameSitePath(back);
        BrowserCheck check = engine.policy().browserCheck();
        long now = clock.millis();
        String userAgent = UserAgents.bounded(request.getHeaders().get(HttpHeader.USER_AGENT));
        String agent = userAgent == null ? "" : userAgent;
        long noScriptWait = check.noScript() ? check.noScriptWaitSeconds() * 1000L : -1;
        ProofOfWork.Answer answer = token == null || back == null
                ? new ProofOfWork.Rejected(ProofOfWork.Why.MALFORMED)
                : engine.proofOfWork().check(token, nonce, back, address, agent, now, noScriptWait);
        if (answer instanceof ProofOfWork.Solved solved) {
            long wait = engine.earnPass(address, solved.weak());
            if (wait > 0) {
                withhold(request, response, callback, returnPath, wait);
                log.log(request, response, HttpStatus.TOO_MANY_REQUESTS_429, address.toString(), "PASS_WITHHELD");
                return;
            }
            long ttl = check.passTtlSeconds();
            String pass = engine.browserPasses().mint(solved.passId(), solved.weak(), address, agent,
                    now + ttl * 1000L);
            response.getHeaders().add(HttpHeader.SET_COOKIE, BrowserPasses.COOKIE + "=" + pass + "; Path=/; Max-Age="
                    + ttl + "; HttpOnly; SameSite=Lax" + (request.isSecure() ? "; Secure" : ""));
            response.getHeaders().put(HttpHeader.LOCATION, returnPath);
            response.setStatus(HttpStatus.SEE_OTHER_303);
            // an empty last write, not a callback completed with nothing written (why: admin's ApiMessages.noContent)
            response.write(true, BufferUtil.EMPTY_BUFFER, callback);
            log.log(request, response, HttpStatus.SEE_OTHER_303, address.toString(),
                    solved.weak() ? "PASS_WEAK" : "PASS");
            return;
        }
        ProofOfWork.Why why = ((ProofOfWork.Rejected) answer).why();
        if (why == ProofOfWork.Why.TOO_EARLY && request.getAttribute(HELD) == null) {
            // A browser without JavaScript that came before its wait was over (a meta refresh runs on the page's
            // time, which a headless browser may run fast) is held here until it is, then answered again: no thread
            // waits, at most noScriptWaitSeconds, once. Coming early buys nothing, and a person is not turned away.
            request.setAttribute(HELD, Boolean.TRUE);
            request.getComponents().getScheduler().schedule(() -> answer(request, response, callback, log),
                    noScriptWait, TimeUnit.MILLISECONDS);
            return;
        }
        engine.answerRefused(address);
        write(request, response, callback, HttpStatus.FORBIDDEN_403, returnPath, switch (why) {
            case EXPIRED -> "The check expired before it was answered.";
            case TOO_EARLY -> "The check was answered sooner than it allows.";
            case WRONG_ANSWER -> "The check's answer was wrong.";
            case FORGED -> "The check was not issued for this page, network or browser.";
            case MALFORMED -> "The check's answer is incomplete.";
        });
        log.log(request, response, HttpStatus.FORBIDDEN_403, address.toString(), "PASS_REFUSED:" + why);
    }

    /**
     * A right answer from a network waiting out its cooldown (a pass of it was dropped: shared by more addresses than
     * one person has, or over the network's budget): no pass yet, and a page that goes back to the one asked for once
     * the wait is over, where the check is asked again.
     */
    private static void withhold(Request request, Response response, Callback callback, String back, long waitMillis) {
        long seconds = Math.max(1, (waitMillis + 999) / 1000);
        response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(seconds));
        String escaped = RefusalResponder.htmlEscape(back);
        page(request, response, callback, HttpStatus.TOO_MANY_REQUESTS_429,
                "<meta http-equiv=\"refresh\" content=\"" + seconds + ";url=" + escaped + "\">", "One moment",
                "Browsers on this network were checked many times in a short while. This page goes back in "
                        + seconds + " s.", escaped, "Go back now");
    }

    private static void write(Request request, Response response, Callback callback, int status, String back,
                              String why) {
        page(request, response, callback, status, "", "Browser check failed", why, RefusalResponder.htmlEscape(back),
                "Try again");
    }

    /** A small noindex page: {@code title}, one sentence ({@code text}, escaped here) and a link back. */
    private static void page(Request request, Response response, Callback callback, int status, String head,
                             String title, String text, String escapedBack, String linkText) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/html;charset=utf-8");
        String page = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"robots\" "
                + "content=\"noindex\">" + head + "<title>" + title + "</title></head><body><h1>" + title + "</h1><p>"
                + RefusalResponder.htmlEscape(text) + "</p><p><a href=\"" + escapedBack + "\">" + linkText
                + "</a></p></body></html>";
        org.eclipse.jetty.io.Content.Sink.write(response, true, "HEAD".equals(request.getMethod()) ? "" : page,
                callback);
    }

    private static String parameter(Fields query, String name) {
        String value = query.getValue(name);
        return value == null || value.length() > MAX_PARAMETER ? null : value;
    }

    /** {@code path} when it is a path on this site ({@code /x}; not {@code //host}, {@code /\host}), else {@code /}. */
    static String sameSitePath(String path) {
        if (path == null || path.isEmpty() || path.charAt(0) != '/' || path.length() > 1
                && (path.charAt(1) == '/' || path.charAt(1) == '\\')) {
            return "/";
        }
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c < 0x21 || c == 0x7f || c == '\\') {
                return "/";
            }
        }
        return path;
    }
}
