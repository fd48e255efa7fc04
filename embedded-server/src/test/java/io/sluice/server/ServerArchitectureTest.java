package io.sluice.server;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import io.sluice.engine.PolicyWriter;
import io.sluice.engine.ThrottleEngine;
import io.sluice.server.change.PolicyChanges;
import io.sluice.server.cluster.ClusterNode;
import io.sluice.server.cluster.LocalPolicyMirror;

/**
 * The server's composition (docs/architecture.md, "Composition"), as rules: the modes assembled in the top package,
 * the demo built on the server in a module of its own, the admin API and the front end apart, the cluster behind its
 * seams.
 */
@AnalyzeClasses(packages = "io.sluice.server", importOptions = ImportOption.DoNotIncludeTests.class)
class ServerArchitectureTest {

    /** The demo module's classes (the demo, the benchmark relays) and the local-redis module's launchers. */
    private static final DescribedPredicate<JavaClass> DEMO_MODULE =
            resideInAnyPackage("io.sluice.server.demo..", "io.sluice.server.bench..", "io.sluice.localredis..")
                    .as("the demo module's (io.sluice.server.demo, io.sluice.server.bench) or local-redis's "
                            + "(io.sluice.localredis)");

    @ArchTest
    void productionCodeKnowsNoDemo(JavaClasses classes) {
        noClasses().that().resideInAPackage("io.sluice.server..")
                .should().dependOnClassesThat(DEMO_MODULE)
                .because("the demo (its site, traffic, crawler fleet and cluster) and the benchmark relays live in "
                        + "the demo module, which builds on the server, never the reverse, and the throwaway Redis "
                        + "launchers in local-redis: a production node carries no demo wiring, and the demo changes "
                        + "without touching the server; the demo's jar (DemoMain) adds its starter and command to the "
                        + "command line")
                .check(classes);
    }

    @ArchTest
    void theServerJarHoldsNoDemoClass(JavaClasses classes) {
        noClasses().that().resideInAPackage("io.sluice.server..")
                .should().resideInAnyPackage("io.sluice.server.demo..", "io.sluice.server.bench..")
                .orShould().haveSimpleNameStartingWith("LocalRedis")
                .because("the server jar (and its .deb) holds the product: what shows, launches or measures it goes "
                        + "in the demo module (a Redis launcher in local-redis)")
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
        slices().assignedFrom(subpackagesAndTopClasses("io.sluice.server"))
                .should().beFreeOfCycles()
                // the top package's classes (the composition) work together; a cycle that stays among them is
                // one package's business, a cycle through a subpackage is what this forbids
                .ignoreDependency(resideInAPackage("io.sluice.server"), resideInAPackage("io.sluice.server"))
                .because("each package can then be read, tested and changed from the bottom up; the top package, "
                        + "the composition, may use any of them, and none of them names it back (config check asks "
                        + "the command line's root for its options, ConfigurableCommand, rather than naming Main)")
                .check(classes);
    }

    @ArchTest
    void onlyThePolicysWritersHoldTheEnginesPolicyWriter(JavaClasses classes) {
        noClasses().that().doNotBelongToAnyOf(NodeEngine.class, ClusterMember.class, PolicyChanges.class,
                        LocalPolicyMirror.class)
                .should().dependOnClassesThat().belongToAnyOf(PolicyWriter.class)
                .orShould().callMethod(ThrottleEngine.class, "claimPolicyWriter")
                .because("the policy changes in one place, PolicyChanges (validate, persist, audit, install), and on a "
                        + "node of a cluster also by the mirror of versions other nodes made and audited; NodeEngine "
                        + "claims the writer as it builds the engine, so the engine it hands out (SluiceServer.engine, "
                        + "SluiceThrottle.engine) cannot write past the audit")
                .check(classes);
    }

    /**
     * Each subpackage of {@code top} (with its own subpackages) is one slice, and each class of {@code top} itself
     * (with its nested classes) is one, so a cycle between the composition and a package shows up too.
     */
    private static SliceAssignment subpackagesAndTopClasses(String top) {
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass type) {
                String name = type.getPackageName();
                if (name.equals(top)) {
                    JavaClass outer = type;
                    while (outer.getEnclosingClass().isPresent()) {
                        outer = outer.getEnclosingClass().get();
                    }
                    return SliceIdentifier.of(outer.getSimpleName());
                }
                if (name.startsWith(top + ".")) {
                    String rest = name.substring(top.length() + 1);
                    int dot = rest.indexOf('.');
                    return SliceIdentifier.of((dot < 0 ? rest : rest.substring(0, dot)) + "/");
                }
                return SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "the subpackages and the classes of " + top;
            }
        };
    }
}
