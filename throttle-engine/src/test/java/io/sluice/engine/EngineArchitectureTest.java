package io.sluice.engine;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import io.sluice.engine.policy.Policy;
import java.time.Clock;
import java.time.Instant;
import java.time.InstantSource;
import java.util.function.Function;
import java.util.function.UnaryOperator;

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

    @ArchTest
    void nothingButThePolicyWriterChangesThePolicy(JavaClasses engine) {
        noClasses().that().doNotBelongToAnyOf(PolicyWriter.class, ThrottleEngine.class)
                .should().callMethod(ThrottleEngine.class, "replacePolicy", long.class, Policy.class)
                .orShould().callMethod(ThrottleEngine.class, "updatePolicy", UnaryOperator.class)
                .orShould().callMethod(ThrottleEngine.class, "adoptPolicy", Policy.class)
                .because("the policy has one writer, handed out once (ThrottleEngine.claimPolicyWriter): whoever holds "
                        + "it audits and persists (the server's PolicyChanges), so holding the engine is not enough "
                        + "to change the policy past the audit")
                .check(engine);
    }

    @ArchTest
    void theEnginesPublicMethodsTakeNoPolicy(JavaClasses engine) {
        methods().that().areDeclaredIn(ThrottleEngine.class).and().arePublic()
                .should(new ArchCondition<JavaMethod>("take no policy nor a change of one") {
                    @Override
                    public void check(JavaMethod method, ConditionEvents events) {
                        boolean writes = method.getRawParameterTypes().stream().anyMatch(
                                assignableTo(Policy.class).or(assignableTo(Function.class))
                                        .or(assignableTo(UnaryOperator.class))::test);
                        events.add(new SimpleConditionEvent(method, !writes, method.getFullName()
                                + (writes ? " takes a policy: a way to write it past the policy's one writer" : "")));
                    }
                })
                .because("a public write on the engine is a write past the audit for whoever holds the engine (an "
                        + "embedding site, a test): writes go through PolicyWriter alone")
                .check(engine);
    }

    @ArchTest
    void thePackagesAndTheFacadeHaveNoCycles(JavaClasses engine) {
        slices().assignedFrom(subpackagesAndTopClasses("io.sluice.engine"))
                .should().beFreeOfCycles()
                // the stages of the top package work together (Outcomes and its waits, the prelude and the browser
                // gate): a cycle among them stays in one package; a cycle through a subpackage is what this forbids
                .ignoreDependency(resideInAPackage("io.sluice.engine"), resideInAPackage("io.sluice.engine"))
                .because("the engine reads from the top down: ThrottleEngine and its stages use the machinery in "
                        + "internal/, check/, classify/...; what both need (UserAgents, the request's values) sits "
                        + "where neither leads back to the other, so no piece of machinery reaches back up to the "
                        + "facade that assembles it")
                .check(engine);
    }

    /**
     * Each subpackage of {@code top} (with its own subpackages) is one slice, and each class of {@code top} itself
     * (with its nested classes) is one: the top package holds the API's values and the facade, which every
     * subpackage may use, as long as nothing it uses leads back to it.
     */
    static SliceAssignment subpackagesAndTopClasses(String top) {
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
