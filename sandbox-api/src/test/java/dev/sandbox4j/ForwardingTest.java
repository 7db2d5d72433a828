package dev.sandbox4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Every method of every interface a {@link Sandbox} hands out, interface defaults included, is overridden by its
 * {@code Forwarding*} base and reaches the delegate with the same arguments, returning the delegate's answer. Driven
 * by reflection over the interfaces, so a method added to the API later fails here until it is forwarded.
 */
class ForwardingTest {
    /** Makes a forwarding instance over a delegate; one line per base (they are abstract by design). */
    static final Map<Class<?>, Function<Object, Object>> BASES = Map.ofEntries(Map.entry(
            Sandbox.class, d -> new ForwardingSandbox() {
                @Override
                protected Sandbox delegate() {
                    return (Sandbox) d;
                }
            }), Map.entry(
            Shell.class, d -> new ForwardingShell() {
                @Override
                protected Shell delegate() {
                    return (Shell) d;
                }
            }), Map.entry(
            Processes.class, d -> new ForwardingProcesses() {
                @Override
                protected Processes delegate() {
                    return (Processes) d;
                }
            }), Map.entry(
            ExecHandle.class, d -> new ForwardingExecHandle() {
                @Override
                protected ExecHandle delegate() {
                    return (ExecHandle) d;
                }
            }), Map.entry(
            CodeRunner.class, d -> new ForwardingCodeRunner() {
                @Override
                protected CodeRunner delegate() {
                    return (CodeRunner) d;
                }
            }), Map.entry(
            CodeContext.class, d -> new ForwardingCodeContext() {
                @Override
                protected CodeContext delegate() {
                    return (CodeContext) d;
                }
            }), Map.entry(
            FileSystem.class, d -> new ForwardingFileSystem() {
                @Override
                protected FileSystem delegate() {
                    return (FileSystem) d;
                }
            }), Map.entry(
            FileWatch.class, d -> new ForwardingFileWatch() {
                @Override
                protected FileWatch delegate() {
                    return (FileWatch) d;
                }
            }), Map.entry(
            Workspace.class, d -> new ForwardingWorkspace() {
                @Override
                protected Workspace delegate() {
                    return (Workspace) d;
                }
            }), Map.entry(
            Ports.class, d -> new ForwardingPorts() {
                @Override
                protected Ports delegate() {
                    return (Ports) d;
                }
            }), Map.entry(
            PortForward.class, d -> new ForwardingPortForward() {
                @Override
                protected PortForward delegate() {
                    return (PortForward) d;
                }
            }));

    private final AtomicInteger counter = new AtomicInteger(1000);

    @Test
    void everyInterfaceASandboxHandsOut_hasAForwardingBase() throws Exception {
        Set<Class<?>> handedOut = handedOut(Sandbox.class);
        assertThat(handedOut).as("interfaces reachable from Sandbox's methods")
                .contains(Shell.class, CodeRunner.class, FileSystem.class, CodeContext.class, ExecHandle.class);
        for (Class<?> type : handedOut) {
            Class<?> base = Class.forName("dev.sandbox4j.Forwarding" + type.getSimpleName());
            assertThat(Modifier.isAbstract(base.getModifiers()) && Modifier.isPublic(base.getModifiers()))
                    .as(base + " is a public abstract class").isTrue();
            assertThat(type).as(base + " implements " + type).matches(t -> t.isAssignableFrom(base));
            assertThat(base.getDeclaredMethod("delegate").getReturnType()).isEqualTo(type);
            assertThat(Modifier.isProtected(base.getDeclaredMethod("delegate").getModifiers())).isTrue();
        }
        assertThat(BASES.keySet()).as("the test covers each base").isEqualTo(handedOut);
    }

    @Test
    void everyMethod_defaultsIncluded_isOverriddenAndForwarded() throws Exception {
        int checked = 0;
        for (Class<?> type : handedOut(Sandbox.class)) {
            Class<?> base = Class.forName("dev.sandbox4j.Forwarding" + type.getSimpleName());
            for (Method m : sorted(type.getMethods())) {
                if (Modifier.isStatic(m.getModifiers())) {
                    continue;
                }
                Method override = base.getDeclaredMethod(m.getName(), m.getParameterTypes());
                assertThat(Modifier.isAbstract(override.getModifiers())).as(override + " is implemented").isFalse();

                List<Object[]> calls = new ArrayList<>();
                List<Method> called = new ArrayList<>();
                Object answer = m.getReturnType() == void.class ? null : sample(m.getReturnType());
                Object delegate = Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                        (proxy, method, args) -> {
                            if (method.getDeclaringClass() == Object.class) {
                                return method.getName().equals("toString") ? "delegate" : method.invoke(this, args);
                            }
                            called.add(method);
                            calls.add(args == null ? new Object[0] : args);
                            return answer;
                        });
                Object forwarding = BASES.get(type).apply(delegate);
                Object[] args = Arrays.stream(m.getParameterTypes()).map(this::sample).toArray();
                Object result = m.invoke(forwarding, args);

                assertThat(called).as(type.getSimpleName() + "." + m.getName() + " reaches the delegate once, as itself")
                        .containsExactly(m);
                for (int i = 0; i < args.length; i++) {
                    if (m.getParameterTypes()[i].isPrimitive()) {
                        assertThat(calls.get(0)[i]).as(m + " argument " + i).isEqualTo(args[i]);
                    } else {
                        assertThat(calls.get(0)[i]).as(m + " argument " + i).isSameAs(args[i]);
                    }
                }
                if (m.getReturnType().isPrimitive()) {
                    assertThat(result).as(m + " returns the delegate's answer").isEqualTo(answer);
                } else {
                    assertThat(result).as(m + " returns the delegate's answer").isSameAs(answer);
                }
                assertThat(forwarding.toString()).isEqualTo("delegate");
                checked++;
            }
        }
        System.out.println("[forwarding] " + checked + " methods forwarded");
        assertThat(checked).isGreaterThan(50);
    }

    /** The sandbox4j interfaces returned, directly or in a generic (List, Optional), by the type's methods. */
    static Set<Class<?>> handedOut(Class<?> root) {
        Set<Class<?>> seen = new LinkedHashSet<>();
        Deque<Class<?>> todo = new ArrayDeque<>(List.of(root));
        while (!todo.isEmpty()) {
            Class<?> type = todo.pop();
            if (!seen.add(type)) {
                continue;
            }
            for (Method m : type.getMethods()) {
                for (Class<?> c : mentioned(m.getGenericReturnType())) {
                    if (c.isInterface() && c.getPackageName().equals("dev.sandbox4j")) {
                        todo.add(c);
                    }
                }
            }
        }
        return seen;
    }

    private static List<Class<?>> mentioned(Type t) {
        List<Class<?>> out = new ArrayList<>();
        if (t instanceof Class<?> c) {
            out.add(c);
        } else if (t instanceof ParameterizedType p) {
            out.addAll(mentioned(p.getRawType()));
            for (Type a : p.getActualTypeArguments()) {
                out.addAll(mentioned(a));
            }
        }
        return out;
    }

    private static List<Method> sorted(Method[] methods) {
        List<Method> list = new ArrayList<>(Arrays.asList(methods));
        list.sort(Comparator.comparing(Method::toGenericString));
        return list;
    }

    /** A fresh value of the type, distinct by identity where the type allows, so forwarding is seen, not guessed. */
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
            return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, a) -> {
                throw new AssertionError("a sample " + type.getSimpleName() + " is not called");
            });
        }
        // API values: a public static factory or constructor whose parameters can be sampled in turn
        List<java.lang.reflect.Executable> makers = new ArrayList<>();
        for (Method m : type.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) && m.getReturnType() == type) {
                makers.add(m);
            }
        }
        makers.addAll(Arrays.asList(type.getConstructors()));
        makers.sort(Comparator.comparingInt(java.lang.reflect.Executable::getParameterCount));
        for (java.lang.reflect.Executable e : makers) {
            try {
                Object[] args = Arrays.stream(e.getParameterTypes()).map(this::sample).toArray();
                return e instanceof Method m ? m.invoke(null, args) : ((Constructor<?>) e).newInstance(args);
            } catch (ReflectiveOperationException | IllegalArgumentException ignored) {
                // try the next one: this one refused the sampled arguments
            }
        }
        throw new AssertionError("no sample of " + type);
    }

}
