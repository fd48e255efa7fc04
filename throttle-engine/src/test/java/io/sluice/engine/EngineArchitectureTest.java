package io.sluice.engine;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;

import java.time.Clock;
import java.time.Instant;
import java.time.InstantSource;

/** The engine's place in the layers (docs/architecture.md, "Modules and layers" and "Time"), as rules. */
@AnalyzeClasses(packages = "io.sluice.engine", importOptions = ImportOption.DoNotIncludeTests.class)
class EngineArchitectureTest {

    @ArchTest
    void knowsNeitherJettyNorJavaFxNorTheModulesAboveIt(JavaClasses engine) {
        noClasses()
                .should().dependOnClassesThat().resideInAnyPackage("org.eclipse.jetty..", "jakarta.servlet..",
                        "javafx..", "java.awt..", "javax.swing..", "io.lettuce..", "java.net.http..",
                        "io.sluice.server..", "io.sluice.console..", "io.sluice.crawl..")
                .because("the engine is the pure core: every rule is tested without a server or a screen, and a "
                        + "second front end (embedded mode, a replay of past access logs) reuses it unchanged; the "
                        + "layers point one way, console -> admin API -> server -> engine")
                .check(engine);
    }

    @ArchTest
    void readsTimeOnlyFromItsInjectedClock(JavaClasses engine) {
        noClasses()
                .should().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(System.class, "nanoTime")
                .orShould().callMethod(Instant.class, "now")
                .orShould().callMethod(Clock.class, "systemUTC")
                .orShould().callMethod(Clock.class, "systemDefaultZone")
                .orShould().callMethod(InstantSource.class, "system")
                .orShould().callMethod(Thread.class, "sleep", long.class)
                .because("time comes from an injected InstantSource and a rule that waits answers Decision.Wait: "
                        + "tests drive a manual clock, so every time-based rule is checked deterministically and fast, "
                        + "and a replay runs a day's log on a clock set from the log")
                .check(engine);
    }
}
