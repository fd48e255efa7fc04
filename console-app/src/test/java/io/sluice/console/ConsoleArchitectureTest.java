package io.sluice.console;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import io.sluice.console.ui.Fxml;
import io.sluice.engine.Reason;
import io.sluice.engine.RequestClass;
import io.sluice.engine.whatif.WhatIfReport;
import javafx.fxml.FXMLLoader;

/**
 * The console's place in the layers (docs/architecture.md, "Modules and layers" and "Console"), as rules over
 * the console's, the server's and the engine's classes (all on this module's class path).
 */
@AnalyzeClasses(packages = "io.sluice", importOptions = ImportOption.DoNotIncludeTests.class)
class ConsoleArchitectureTest {
    /** The one console class that may start a server: the demo's embedded front end. */
    private static final String DEMO_LAUNCHER = "ConsoleApp";

    /** What the admin API carries: the policy, telemetry, the governor's views, the what-if report. */
    private static final DescribedPredicate<JavaClass> ENGINE_VALUES = resideInAnyPackage(
            "io.sluice.engine.policy..", "io.sluice.engine.telemetry..", "io.sluice.engine.governor..")
            .or(belongToAnyOf(RequestClass.class, Reason.class, WhatIfReport.class))
            .as("the engine's value types the admin API carries");

    @ArchTest
    void theConsoleTalksToServersOnlyThroughTheAdminApi(JavaClasses classes) {
        noClasses().that().resideInAPackage("io.sluice.console..").and().doNotHaveSimpleName(DEMO_LAUNCHER)
                .should().dependOnClassesThat().resideInAPackage("io.sluice.server..")
                .because("the console runs on an operator's workstation and the servers elsewhere: all it knows of a "
                        + "server is what the admin API says (the demo launcher alone starts an embedded one)")
                .check(classes);
    }

    @ArchTest
    void fromTheEngineTheConsoleUsesOnlyTheValuesTheApiCarries(JavaClasses classes) {
        noClasses().that().resideInAPackage("io.sluice.console..").and().doNotHaveSimpleName(DEMO_LAUNCHER)
                .should().dependOnClassesThat(resideInAPackage("io.sluice.engine..").and(not(ENGINE_VALUES)))
                .because("a console that reached into engine internals (the ThrottleEngine, client state, rules) "
                        + "would work only in the server's JVM; through the API it works against any server")
                .check(classes);
    }

    @ArchTest
    void onlyTheAdminClientMakesHttpCalls(JavaClasses classes) {
        noClasses().that().resideInAPackage("io.sluice.console..")
                .and().resideOutsideOfPackage("io.sluice.console.api..")
                .should().dependOnClassesThat().resideInAPackage("java.net.http..")
                .because("the admin client is the one way to a server: its token, certificate pinning, deadlines and "
                        + "lenient reading then hold for every call")
                .check(classes);
    }

    @ArchTest
    void viewModelsNeedNoToolkit(JavaClasses classes) {
        noClasses().that().resideInAPackage("io.sluice.console..").and().haveSimpleNameEndingWith("ViewModel")
                .should().dependOnClassesThat().resideInAnyPackage("javafx.scene..", "javafx.application..",
                        "javafx.stage..", "javafx.fxml..", "javafx.animation..")
                .because("ViewModels (properties and commands) are tested without the toolkit; a view binds them")
                .check(classes);
    }

    @ArchTest
    void everyLayoutIsLoadedOneWay(JavaClasses classes) {
        noClasses().that().resideInAPackage("io.sluice.console..").and().doNotBelongToAnyOf(Fxml.class)
                .should().dependOnClassesThat().belongToAnyOf(FXMLLoader.class)
                .because("one room shape (docs/architecture.md, \"Console\"): a view loads Name.fxml beside it with "
                        + "itself as the controller and Name.css as its stylesheet through Fxml.load, so a layout "
                        + "that names the wrong controller or lacks its stylesheet fails the same way everywhere")
                .check(classes);
    }

    @ArchTest
    void roomsPollOnlyThroughTheSessionsExecutor(JavaClasses classes) {
        noClasses().that().resideInAPackage("io.sluice.console..")
                .should().dependOnClassesThat().resideInAPackage("javafx.animation..")
                .because("a room reads the server through a Feed the session makes: on the session's one "
                        + "executor, off the FX thread, never twice at once, stopped when the room is left and "
                        + "closed with the session; a Timeline would fire on the FX thread and outlive the session")
                .check(classes);
    }

    @ArchTest
    void noServerOrEngineClassUsesEngineInternalsFromOutside(JavaClasses classes) {
        noClasses().that().resideOutsideOfPackage("io.sluice.engine..")
                .should().dependOnClassesThat().resideInAPackage("io.sluice.engine.internal..")
                .because("io.sluice.engine.internal is the engine's own (client state, compiled policy, rule state): "
                        + "its module does not export it; the shared per-client store's seam, which cluster mode "
                        + "implements in the server, is the exported io.sluice.engine.store")
                .check(classes);
    }

    @ArchTest
    void theServerKnowsNoConsole(JavaClasses classes) {
        noClasses().that().resideInAPackage("io.sluice.server..")
                .should().dependOnClassesThat().resideInAnyPackage("io.sluice.console..", "javafx..")
                .because("the server runs headless on the front-end machines; the console is one client of its API")
                .check(classes);
    }
}
