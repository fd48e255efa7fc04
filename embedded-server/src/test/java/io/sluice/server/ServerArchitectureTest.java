package io.sluice.server;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.simpleNameStartingWith;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import io.sluice.server.cluster.ClusterNode;

/**
 * The server's composition (docs/architecture.md, "Composition"), as rules: the modes assembled in the top package,
 * the demo built on the server in a module of its own, the admin API and the front end apart, the cluster behind its
 * seams.
 */
@AnalyzeClasses(packages = "io.sluice.server", importOptions = ImportOption.DoNotIncludeTests.class)
class ServerArchitectureTest {

    /** The demo module's classes: the demo, the benchmark relays and the throwaway Redis launchers. */
    private static final DescribedPredicate<JavaClass> DEMO_MODULE =
            resideInAnyPackage("io.sluice.server.demo..", "io.sluice.server.bench..")
                    .or(resideInAPackage("io.sluice.server.cluster").and(simpleNameStartingWith("LocalRedis")))
                    .as("the demo module's (io.sluice.server.demo, io.sluice.server.bench, cluster.LocalRedis*)");

    @ArchTest
    void productionCodeKnowsNoDemo(JavaClasses classes) {
        noClasses().that().resideInAPackage("io.sluice.server..")
                .should().dependOnClassesThat(DEMO_MODULE)
                .because("the demo (its site, traffic, crawler fleet and cluster), the throwaway Redis launchers and "
                        + "the benchmark relays live in the demo module, which builds on the server, never the "
                        + "reverse: a production node carries no demo wiring, and the demo changes without touching "
                        + "the server; the demo's jar (DemoMain) adds its starter and command to the command line")
                .check(classes);
    }

    @ArchTest
    void theServerJarHoldsNoDemoClass(JavaClasses classes) {
        noClasses().that().resideInAPackage("io.sluice.server..")
                .should().resideInAnyPackage("io.sluice.server.demo..", "io.sluice.server.bench..")
                .orShould().haveSimpleNameStartingWith("LocalRedis")
                .because("the server jar (and its .deb) holds the product: what shows, launches or measures it goes "
                        + "in the demo module")
                .check(classes);
    }

    @ArchTest
    void theAdminApiDoesNotReachIntoTheFrontEnd(JavaClasses classes) {
        noClasses().that().resideInAPackage("io.sluice.server.admin..")
                .should().dependOnClassesThat().resideInAPackage("io.sluice.server.front..")
                .because("the admin API serves a standalone node and an embedded one (whose front end is the site's "
                        + "own Jetty) alike: what it shows of a front end comes in its own values (ServerCounters), "
                        + "which the composition fills")
                .check(classes);
    }

    @ArchTest
    void theFrontEndDoesNotReachIntoTheAdminApi(JavaClasses classes) {
        noClasses().that().resideInAPackage("io.sluice.server.front..")
                .should().dependOnClassesThat().resideInAPackage("io.sluice.server.admin..")
                .because("the request path depends on the engine alone: an admin change reaches it as a new policy "
                        + "in the engine, never as a call from the admin API")
                .check(classes);
    }

    @ArchTest
    void theClusterStaysBehindItsSeams(JavaClasses classes) {
        noClasses().that().resideInAPackage("io.sluice.server..")
                .and().resideOutsideOfPackages("io.sluice.server", "io.sluice.server.cluster..",
                        "io.sluice.server.config..")
                .should().dependOnClassesThat().resideInAPackage("io.sluice.server.cluster..")
                .because("the rest of the server meets the cluster only through seams it does not own (the engine's "
                        + "SharedClientStore, the governor's ledger, PolicyStore); the mode assemblies in the top "
                        + "package plug Redis in, so a node on its own and an embedded one carry none of it (the "
                        + "command line and its configuration file read --redis)")
                .check(classes);
    }

    @ArchTest
    void theServerAsksItsModeRatherThanWhichModeItIs(JavaClasses classes) {
        noClasses().that().belongToAnyOf(SluiceServer.class)
                .should().callMethod(ServerConfig.class, "cluster")
                .orShould().dependOnClassesThat(resideInAPackage("io.sluice.server.cluster..")
                        .and(not(belongToAnyOf(ClusterNode.class))))
                .because("a node on its own and a cluster node are each assembled in one place (NodeMode: SingleNode, "
                        + "ClusterMember); the server's start reads as one sequence for both, and a third mode is a "
                        + "new NodeMode, not a new branch")
                .check(classes);
    }

    @ArchTest
    void theServersPackagesHaveNoCycles(JavaClasses classes) {
        slices().matching("io.sluice.server.(*)..")
                .should().beFreeOfCycles()
                .because("each package can then be read, tested and changed from the bottom up; the top package, "
                        + "the composition, is outside the slices and may use any of them")
                .check(classes);
    }
}
