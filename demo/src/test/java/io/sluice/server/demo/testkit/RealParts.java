package io.sluice.server.demo.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * The test needs real parts that a machine with only a JDK lacks: a redis-server (the demo cluster). Its class is
 * tagged {@code real-parts}: the second tier, left out of {@code ./mvnw verify} and run by
 * {@code scripts/test-real-parts.sh} ({@code -Preal-parts}). The same tag as the server's tests'
 * {@code io.sluice.server.testkit.RealParts} (a copy: the demo's tests cannot see the server's); inherited, as that
 * one.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Tag("real-parts")
public @interface RealParts {
}
