package io.sluice.server.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * The test needs real parts that a machine with only a JDK lacks: a redis-server (one, or a Redis Cluster), nginx,
 * Chromium, Prometheus and promtool, the server's Debian package. Its class is tagged {@code real-parts}: the second
 * tier, left out of {@code ./mvnw verify} and run by {@code scripts/test-real-parts.sh} ({@code -Preal-parts}).
 * Inherited: a subclass of a class that says it is in the tier too.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Tag("real-parts")
public @interface RealParts {
}
