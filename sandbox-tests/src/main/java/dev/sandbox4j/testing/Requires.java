package dev.sandbox4j.testing;

import dev.sandbox4j.Feature;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a kit test only when the backend declares every feature in {@link #value()} and none in {@link #absent()}.
 * A test for a feature has a twin with {@code absent} that pins the typed error and the unchanged state.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Requires {
    Feature[] value() default {};

    Feature[] absent() default {};
}
