package dev.sandbox4j.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ForwardingFixtureTest {
    /** Every instance method of the fixture interface, defaults included, reaches the delegate with its arguments. */
    @Test
    void everyFixtureMethodIsForwardedWithItsArguments() throws Exception {
        List<String> calls = new ArrayList<>();
        SandboxFixture delegate = (SandboxFixture) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {SandboxFixture.class}, (proxy, m, args) -> {
                    calls.add(m.getName() + Arrays.deepToString(args == null ? new Object[0] : args));
                    return m.getReturnType() == boolean.class ? Boolean.FALSE : null;
                });
        SandboxFixture forwarding = new ForwardingFixture(delegate) {
        };
        int checked = 0;
        for (Method m : SandboxFixture.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            Object[] args = new Object[m.getParameterCount()];
            for (int i = 0; i < args.length; i++) {
                args[i] = sample(m.getParameterTypes()[i], i);
            }
            calls.clear();
            m.invoke(forwarding, args);
            assertThat(calls).as(m.toString()).containsExactly(m.getName() + Arrays.deepToString(args));
            checked++;
        }
        assertThat(checked).isGreaterThanOrEqualTo(8);
    }

    private static Object sample(Class<?> type, int i) {
        if (type == String.class) {
            return "arg" + i;
        }
        if (type.isArray()) {
            return java.lang.reflect.Array.newInstance(type.getComponentType(), 0);
        }
        if (type.isInterface()) {
            return Proxy.newProxyInstance(ForwardingFixtureTest.class.getClassLoader(), new Class<?>[] {type},
                    (p, m, a) -> m.getName().equals("toString") ? type.getSimpleName() + i : null);
        }
        return null; // SandboxSpec, SSLContext: identity is what is compared
    }
}
