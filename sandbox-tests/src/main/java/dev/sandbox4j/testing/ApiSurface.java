package dev.sandbox4j.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Checks that a module's public signatures expose no third-party types (docker-java, Jackson, jimfs, Guava...):
 * what users compile against stays ours and the JDK's.
 */
public final class ApiSurface {
    private ApiSurface() {
    }

    /**
     * The public signatures, in the jar or class directory holding {@code anchor}, that mention a type whose name
     * starts with one of {@code forbiddenPrefixes}; one line each, empty when clean.
     */
    public static List<String> leaks(Class<?> anchor, List<String> forbiddenPrefixes) {
        List<String> out = new ArrayList<>();
        for (Class<?> type : publicClasses(anchor)) {
            List<Type> mentioned = new ArrayList<>();
            if (type.getGenericSuperclass() != null) {
                mentioned.add(type.getGenericSuperclass());
            }
            mentioned.addAll(List.of(type.getGenericInterfaces()));
            for (Method m : type.getDeclaredMethods()) {
                if (exposed(m.getModifiers()) && !m.isSynthetic()) {
                    mentioned.add(m.getGenericReturnType());
                    mentioned.addAll(List.of(m.getGenericParameterTypes()));
                    mentioned.addAll(List.of(m.getGenericExceptionTypes()));
                }
            }
            for (Constructor<?> c : type.getDeclaredConstructors()) {
                if (exposed(c.getModifiers())) {
                    mentioned.addAll(List.of(c.getGenericParameterTypes()));
                }
            }
            for (Field f : type.getDeclaredFields()) {
                if (exposed(f.getModifiers())) {
                    mentioned.add(f.getGenericType());
                }
            }
            for (Type t : mentioned) {
                for (String name : names(t)) {
                    if (forbiddenPrefixes.stream().anyMatch(name::startsWith)) {
                        out.add(type.getName() + " exposes " + name);
                    }
                }
            }
        }
        return out.stream().distinct().collect(Collectors.toList());
    }

    private static boolean exposed(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static List<String> names(Type type) {
        List<String> out = new ArrayList<>();
        if (type instanceof Class<?>) {
            Class<?> c = (Class<?>) type;
            while (c.isArray()) {
                c = c.getComponentType();
            }
            out.add(c.getName());
        } else if (type instanceof ParameterizedType) {
            ParameterizedType p = (ParameterizedType) type;
            out.addAll(names(p.getRawType()));
            for (Type arg : p.getActualTypeArguments()) {
                out.addAll(names(arg));
            }
        } else if (type instanceof WildcardType) {
            for (Type bound : ((WildcardType) type).getUpperBounds()) {
                out.addAll(names(bound));
            }
        }
        return out;
    }

    private static List<Class<?>> publicClasses(Class<?> anchor) {
        try {
            Path location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (Files.isDirectory(location)) {
                return classesIn(location, anchor.getClassLoader());
            }
            try (FileSystem jar = FileSystems.newFileSystem(location, Map.of())) {
                return classesIn(jar.getPath("/"), anchor.getClassLoader());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Class<?>> classesIn(Path root, ClassLoader loader) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            List<String> names = files.map(p -> root.relativize(p).toString())
                    .filter(n -> n.endsWith(".class") && !n.contains("module-info") && !n.startsWith("META-INF"))
                    .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'))
                    .collect(Collectors.toList());
            List<Class<?>> out = new ArrayList<>();
            for (String name : names) {
                try {
                    Class<?> c = Class.forName(name, false, loader);
                    if (Modifier.isPublic(c.getModifiers())) {
                        out.add(c);
                    }
                } catch (ClassNotFoundException | LinkageError e) {
                    throw new IllegalStateException("cannot load " + name, e);
                }
            }
            return out;
        }
    }
}
