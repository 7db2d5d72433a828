package dev.sandbox4j.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sandbox4j.CodeContext;
import dev.sandbox4j.CodeRunner;
import dev.sandbox4j.ExecHandle;
import dev.sandbox4j.FileSystem;
import dev.sandbox4j.ResourceLimits;
import dev.sandbox4j.Sandbox;
import dev.sandbox4j.Shell;
import dev.sandbox4j.opentelemetry.SandboxTelemetry.Target;
import dev.sandbox4j.spi.SandboxProvider;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanContext;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The traced decorator forwards every method of every interface it hands out, interface defaults included, to the
 * same method of the backend with the same arguments (sandbox-api's ForwardingTest idea, over the traced classes):
 * a backend's own overloads are never replaced by an interface default. What it returns is the backend's answer, or
 * for a handed-out component ({@code Shell}, {@code CodeRunner}, {@code FileSystem}, {@code CodeContext},
 * {@code ExecHandle}, a {@code Sandbox} from a provider) that answer traced.
 */
class TracedForwardingTest {
    /** Reading a context's id and language, or a provider's name, to label spans: allowed beside the forwarded call. */
    private static final Set<String> LABEL_READS = Set.of("id", "language", "name");

    final TestTelemetry otel = new TestTelemetry();
    final Target target = new Target("sb-1", "test", SpanContext.getInvalid());
    private final AtomicInteger counter = new AtomicInteger(1000);

    @AfterEach
    void closeSdk() {
        otel.close();
    }

    /** The traced wrapper of each type, over a delegate. */
    Map<Class<?>, Function<Object, Object>> wrappers() {
        SandboxTelemetry t = otel.telemetry;
        Map<Class<?>, Function<Object, Object>> m = new LinkedHashMap<>();
        m.put(Sandbox.class, d -> new TracedSandbox(t, (Sandbox) d, target));
        m.put(Shell.class, d -> new TracedSandbox.TracedShell(t, target, (Shell) d));
        m.put(CodeRunner.class, d -> new TracedSandbox.TracedCodeRunner(t, target, (CodeRunner) d));
        m.put(CodeContext.class, d -> new TracedSandbox.TracedContext(t, target, (CodeContext) d));
        m.put(ExecHandle.class, d -> new TracedSandbox.TracedHandle(t, target, (ExecHandle) d,
                t.start(target, "command", Attributes.empty()), System.nanoTime()));
        m.put(FileSystem.class, d -> new TracedFileSystem(t, target, (FileSystem) d));
        m.put(SandboxProvider.class, d -> t.wrap((SandboxProvider) d));
        return m;
    }

    /** What a returned value of this type must be: the traced class, or null for "the delegate's answer itself". */
    private static Class<?> tracedClassOf(Class<?> type) {
        if (type == Sandbox.class) {
            return TracedSandbox.class;
        }
        if (type == Shell.class) {
            return TracedSandbox.TracedShell.class;
        }
        if (type == CodeRunner.class) {
            return TracedSandbox.TracedCodeRunner.class;
        }
        if (type == CodeContext.class) {
            return TracedSandbox.TracedContext.class;
        }
        if (type == ExecHandle.class) {
            return TracedSandbox.TracedHandle.class;
        }
        if (type == FileSystem.class) {
            return TracedFileSystem.class;
        }
        return null;
    }

    @Test
    void everyMethod_defaultsIncluded_reachesTheBackendAsItself() throws Exception {
        int checked = 0;
        for (Map.Entry<Class<?>, Function<Object, Object>> entry : wrappers().entrySet()) {
            Class<?> type = entry.getKey();
            List<Method> methods = new ArrayList<>(Arrays.asList(type.getMethods()));
            methods.sort(Comparator.comparing(Method::toGenericString));
            for (Method m : methods) {
                if (Modifier.isStatic(m.getModifiers())) {
                    continue;
                }
                List<Method> called = new ArrayList<>();
                List<Object[]> calls = new ArrayList<>();
                Object answer = m.getReturnType() == void.class ? null : sample(m.getGenericReturnType());
                Object delegate = Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                        (proxy, method, args) -> {
                            if (method.getDeclaringClass() == Object.class) {
                                return objectMethod(proxy, method, args, "delegate");
                            }
                            called.add(method);
                            calls.add(args == null ? new Object[0] : args);
                            return method.equals(m) ? answer : sample(method.getGenericReturnType());
                        });
                Object traced = entry.getValue().apply(delegate);
                called.clear();
                calls.clear();
                Object[] args = Arrays.stream(m.getGenericParameterTypes()).map(this::sample).toArray();
                Object result = m.invoke(traced, args);

                String what = type.getSimpleName() + "." + m.getName() + Arrays.toString(m.getParameterTypes());
                assertThat(called.stream().filter(m::equals).count()).as(what + " reaches the delegate once, as itself")
                        .isEqualTo(1);
                assertThat(called).as(what + " calls nothing else but labels").allSatisfy(c ->
                        assertThat(c.equals(m) || LABEL_READS.contains(c.getName())).as(c.toString()).isTrue());
                Object[] forwarded = calls.get(called.indexOf(m));
                for (int i = 0; i < args.length; i++) {
                    if (m.getParameterTypes()[i].isPrimitive()) {
                        assertThat(forwarded[i]).as(what + " argument " + i).isEqualTo(args[i]);
                    } else {
                        assertThat(forwarded[i]).as(what + " argument " + i).isSameAs(args[i]);
                    }
                }
                assertResult(what, m, answer, result);
                if (type != SandboxProvider.class) {
                    assertThat(traced.toString()).isEqualTo("delegate");
                }
                checked++;
            }
        }
        System.out.println("[traced forwarding] " + checked + " methods forwarded");
        assertThat(checked).isGreaterThan(55);
    }

    private void assertResult(String what, Method m, Object answer, Object result) {
        Class<?> traced = tracedClassOf(m.getReturnType());
        Type generic = m.getGenericReturnType();
        if (traced != null) {
            assertThat(result).as(what + " returns the answer traced").isInstanceOf(traced).isNotSameAs(answer);
        } else if (generic instanceof ParameterizedType p && p.getActualTypeArguments()[0] == CodeContext.class) {
            if (m.getReturnType() == List.class) {
                assertThat((List<?>) result).as(what).hasSameSizeAs((List<?>) answer).isNotEmpty()
                        .allSatisfy(c -> assertThat(c).isInstanceOf(TracedSandbox.TracedContext.class));
            } else {
                assertThat((Optional<?>) result).as(what).get().isInstanceOf(TracedSandbox.TracedContext.class);
            }
        } else if (m.getReturnType().isPrimitive()) {
            assertThat(result).as(what + " returns the delegate's answer").isEqualTo(answer);
        } else {
            assertThat(result).as(what + " returns the delegate's answer").isSameAs(answer);
        }
    }

    private Object objectMethod(Object proxy, Method method, Object[] args, String name) {
        return switch (method.getName()) {
            case "toString" -> name;
            case "hashCode" -> System.identityHashCode(proxy);
            case "equals" -> proxy == args[0];
            default -> throw new AssertionError(method);
        };
    }

    /** A fresh value of the type, distinct by identity where the type allows; generic containers hold a sample. */
    Object sample(Type generic) {
        if (generic instanceof ParameterizedType p) {
            Class<?> raw = (Class<?>) p.getRawType();
            Type arg = p.getActualTypeArguments()[0];
            if (raw == List.class) {
                List<Object> list = new ArrayList<>();
                if (arg instanceof Class<?> c && c != String.class) {
                    list.add(sample(c));
                }
                return list;
            }
            if (raw == Optional.class) {
                return Optional.of(sample(arg));
            }
            return sample(raw);
        }
        return sample((Class<?>) generic);
    }

    Object sample(Class<?> type) {
        int n = counter.incrementAndGet();
        if (type == boolean.class || type == Boolean.class) {
            return n % 2 == 0;
        }
        if (type == int.class || type == Integer.class) {
            return n;
        }
        if (type == long.class || type == Long.class) {
            return (long) n;
        }
        if (type == double.class || type == Double.class) {
            return (double) n;
        }
        if (type == ResourceLimits.class) {
            return ResourceLimits.DEFAULTS;
        }
        if (type == String.class) {
            return new String("s" + n);
        }
        if (type == byte[].class) {
            return new byte[] {(byte) n};
        }
        if (type.isEnum()) {
            return type.getEnumConstants()[0];
        }
        if (type == Duration.class) {
            return Duration.ofMillis(n);
        }
        if (type == Instant.class) {
            return Instant.ofEpochSecond(n);
        }
        if (type == InputStream.class) {
            return new ByteArrayInputStream(new byte[0]);
        }
        if (type == OutputStream.class) {
            return new ByteArrayOutputStream();
        }
        if (type == List.class) {
            return new ArrayList<>();
        }
        if (type == Set.class) {
            return new HashSet<>();
        }
        if (type == Map.class) {
            return new HashMap<>();
        }
        if (type == Optional.class) {
            return Optional.of(new Object());
        }
        if (type == Object.class) {
            return new Object();
        }
        if (type.isInterface()) {
            String name = "sample " + type.getSimpleName() + " " + n;
            return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, a) ->
                    m.getDeclaringClass() == Object.class ? objectMethod(p, m, a, name)
                            : m.getReturnType() == void.class ? null : sample(m.getGenericReturnType()));
        }
        List<Executable> makers = new ArrayList<>();
        for (Method m : type.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) && m.getReturnType() == type) {
                makers.add(m);
            }
        }
        makers.addAll(Arrays.asList(type.getConstructors()));
        makers.sort(Comparator.comparingInt(Executable::getParameterCount).thenComparing(Executable::toString));
        for (Executable e : makers) {
            try {
                Object[] args = Arrays.stream(e.getParameterTypes()).map(this::sample).toArray();
                return e instanceof Method m ? m.invoke(null, args) : ((Constructor<?>) e).newInstance(args);
            } catch (ReflectiveOperationException | IllegalArgumentException | AssertionError ignored) {
                // try the next one: this one refused the sampled arguments
            }
        }
        throw new AssertionError("no sample of " + type);
    }
}
