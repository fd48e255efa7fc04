package io.sluice.benchmarks.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.engine.check.BrowserPasses;
import io.sluice.engine.check.PassKey;
import io.sluice.engine.check.PassKeyRing;
import io.sluice.engine.check.ProofOfWork;
import io.sluice.engine.net.IpAddress;
import io.sluice.server.front.Interstitial;
import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fleet benchmark's parts that need no server: the solver against a real interstitial, answers, the summary. */
class FleetPartsTest {
    private static final IpAddress ADDRESS = IpAddress.parse("127.1.3.7");
    private static final String AGENT = Fleet.USER_AGENTS[0];

    @Test
    void theSolverAnswersARealInterstitialAsItsScriptWould() {
        ProofOfWork work = new ProofOfWork(new BrowserPasses(PassKeyRing.of(PassKey.random(new SecureRandom()))));
        ProofOfWork.Challenge issued = work.issue(ADDRESS, AGENT, "/articles/3-7?x=1", 12, 1_000_000);
        String page = Interstitial.page(issued, "/.sluice/pass", 5_000, null);

        Challenge challenge = Challenge.of(page);
        Challenge.Solution solution = challenge.solve();

        assertThat(challenge.token()).isEqualTo(issued.token());
        assertThat(challenge.bits()).isEqualTo(12);
        assertThat(solution.hashes()).isEqualTo(solution.nonce() + 1);
        assertThat(challenge.answerPath(solution.nonce())).startsWith("/.sluice/pass?c=")
                .contains("&n=" + solution.nonce() + "&r=%2Farticles%2F3-7%3Fx%3D1");
        assertThat(work.check(issued.token(), Long.toString(solution.nonce()), "/articles/3-7?x=1", ADDRESS, AGENT,
                1_000_500, -1)).isInstanceOf(ProofOfWork.Solved.class);
        assertThat(Challenge.of("<html><title>Page /a</title></html>")).isNull();
    }

    @Test
    void anAnswerSaysTheCookieItSetsOrClears() {
        Http1.Answer set = new Http1.Answer(303, List.of(new String[] {"set-cookie", "other=1; Path=/"},
                new String[] {"set-cookie", "sluice_pass=abc.def; Path=/; Max-Age=60; HttpOnly"},
                new String[] {"location", "/a"}), "");
        String[] clearing = {"set-cookie", "sluice_pass=; Path=/; Max-Age=0"};
        Http1.Answer cleared = new Http1.Answer(403, List.<String[]>of(clearing), "");

        assertThat(set.cookie(BrowserPasses.COOKIE)).isEqualTo("abc.def");
        assertThat(set.header("location")).isEqualTo("/a");
        assertThat(cleared.cookie(BrowserPasses.COOKIE)).isEmpty();
        assertThat(cleared.cookie("missing")).isNull();
    }

    @Test
    void theSummaryGivesTheMedianAndRangeOfEachFigure() {
        List<String[]> runs = List.of(new String[] {"plain", "5.1", ""}, new String[] {"plain", "4.9", ""},
                new String[] {"plain", "6.0", ""});

        assertThat(FleetSummary.figure(runs, 1)).isEqualTo("5.1 [4.9-6.0]");
        assertThat(FleetSummary.figure(runs.subList(0, 2), 1)).isEqualTo("5.0 [4.9-5.1]");
        assertThat(FleetSummary.figure(runs, 2)).isNull();
    }

    @Test
    void percentilesAreNearestRank() {
        List<Person.Load> loads = List.of(load(300), load(100), load(200), load(400));

        assertThat(BrowserFleetRun.percentile(loads, 0.5)).isEqualTo(200);
        assertThat(BrowserFleetRun.percentile(loads, 0.99)).isEqualTo(400);
        assertThat(BrowserFleetRun.percentile(List.of(), 0.99)).isZero();
    }

    private static Person.Load load(long millis) {
        return new Person.Load(0, millis, true, 0, "");
    }
}
