package dev.sandbox4j.spring;

import dev.sandbox4j.local.LocalOptions;
import dev.sandbox4j.local.LocalSandboxProvider;
import dev.sandbox4j.spi.SandboxProvider;

/** The local provider with {@code sandbox4j.local.*}; loaded only when sandbox-local is on the class path. */
final class LocalBackend {
    static final String OPTIONS_CLASS = "dev.sandbox4j.local.LocalOptions";

    private LocalBackend() {
    }

    static SandboxProvider provider(SandboxProperties.Local p) {
        LocalOptions o = LocalOptions.defaults();
        if (p.getBwrap() != null && !p.getBwrap().isBlank()) {
            o = o.withBwrap(p.getBwrap().trim());
        }
        if (p.getTempDir() != null) {
            o = o.withTempDir(p.getTempDir());
        }
        if (p.getUidBase() != null) {
            o = o.withUidBase(p.getUidBase());
        }
        if (p.getCgroupParent() != null) {
            o = o.withCgroupParent(p.getCgroupParent());
        }
        return new LocalSandboxProvider(o);
    }
}
