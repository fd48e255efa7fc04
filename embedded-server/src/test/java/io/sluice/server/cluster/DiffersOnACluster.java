package io.sluice.server.cluster;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test, in a class whose Redis Cluster variant extends it, that checks what differs on a cluster: keys in more than
 * one slot (several addresses; a crawler's keys in the crawlers' slot, apart from its address's), calls made per
 * master (admissions, releases, flushed hits), a policy or a fleet key read on another master. The value says what.
 *
 * <p>A variant extended with {@link Only} runs these tests and leaves the others: they check rules that one script
 * judges on the keys of one slot (one address's, or the fleet's), the same on a cluster as on one redis-server, where
 * the class itself runs them. Run again on a cluster they would only repeat that run, at seconds of real time each.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@interface DiffersOnACluster {
    /** What differs on a cluster. */
    String value();

    /** Runs only the tests marked {@link DiffersOnACluster}; the others are reported skipped, saying why. */
    final class Only implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getTestMethod().filter(method -> !method.isAnnotationPresent(DiffersOnACluster.class))
                    .map(method -> ConditionEvaluationResult.disabled("judged by the same script as in "
                            + context.getRequiredTestClass().getSuperclass().getSimpleName() + ", which runs it"))
                    .orElse(ConditionEvaluationResult.enabled("differs on a cluster"));
        }
    }
}
