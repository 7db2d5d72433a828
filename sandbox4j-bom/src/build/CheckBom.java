import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Checks that sandbox4j-bom lists exactly the published modules of the reactor, at the reactor's version, and that
 * every published jar module builds sources and javadoc jars. A module is published unless its pom sets
 * {@code maven.deploy.skip} to true. Modules of profiles (benchmarks, reliability) count too.
 *
 * <p>Run by the BOM module's build ({@code validate} phase): {@code java CheckBom.java <repository root>}. Exit 0
 * when all holds, 1 with one line per problem otherwise.
 */
public final class CheckBom {
    private static final String BOM = "sandbox4j-bom";

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
        Element parent = read(root.resolve("pom.xml"));
        String version = text(parent, "version");
        List<String> problems = new ArrayList<>();

        Set<String> modules = new LinkedHashSet<>();
        for (Element m : children(child(parent, "modules"), "module")) {
            modules.add(m.getTextContent().trim());
        }
        for (Element profile : children(child(parent, "profiles"), "profile")) {
            for (Element m : children(child(profile, "modules"), "module")) {
                modules.add(m.getTextContent().trim());
            }
        }
        if (!modules.contains(BOM)) {
            problems.add("the root pom's <modules> does not list " + BOM);
        }

        Set<String> published = new TreeSet<>();
        for (String module : modules) {
            if (module.equals(BOM)) {
                continue;
            }
            Element pom = read(root.resolve(module).resolve("pom.xml"));
            String artifactId = text(pom, "artifactId");
            String packaging = text(pom, "packaging");
            if (packaging == null) {
                packaging = "jar";
            }
            if (property(pom, "maven.deploy.skip")) {
                continue;
            }
            published.add(artifactId);
            if (packaging.equals("jar")) {
                for (String skip : List.of("maven.source.skip", "maven.javadoc.skip")) {
                    if (property(pom, skip)) {
                        problems.add(artifactId + " is published but sets " + skip
                                + ": Maven Central needs its sources and javadoc jars");
                    }
                }
            }
        }

        Element bom = read(root.resolve(BOM).resolve("pom.xml"));
        if (!version.equals(text(bom, "version"))) {
            problems.add(BOM + " has version " + text(bom, "version") + ", the reactor " + version);
        }
        Set<String> listed = new TreeSet<>();
        for (Element d : children(child(child(bom, "dependencyManagement"), "dependencies"), "dependency")) {
            String artifactId = text(d, "artifactId");
            if (!listed.add(artifactId)) {
                problems.add(BOM + " lists " + artifactId + " twice");
            }
            if (!"dev.sandbox4j".equals(text(d, "groupId"))) {
                problems.add(BOM + " lists " + text(d, "groupId") + ":" + artifactId
                        + ": only sandbox4j's own modules belong in it");
            }
            String v = text(d, "version");
            if (!"${project.version}".equals(v) && !version.equals(v)) {
                problems.add(BOM + " gives " + artifactId + " version " + v + ", not the reactor's " + version);
            }
        }
        for (String a : published) {
            if (!listed.contains(a)) {
                problems.add("published module " + a + " is missing from " + BOM);
            }
        }
        for (String a : listed) {
            if (!published.contains(a)) {
                problems.add(BOM + " lists " + a + ", which is not a published module of the reactor");
            }
        }

        if (!problems.isEmpty()) {
            problems.forEach(p -> System.err.println("CheckBom: " + p));
            System.exit(1);
        }
        System.out.println("CheckBom: " + BOM + " " + version + " lists all " + published.size()
                + " published modules: " + String.join(", ", published));
    }

    private static Element read(Path pom) throws Exception {
        if (!Files.isRegularFile(pom)) {
            throw new IllegalStateException("no " + pom);
        }
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Document doc = f.newDocumentBuilder().parse(pom.toFile());
        return doc.getDocumentElement();
    }

    private static Element child(Element e, String name) {
        if (e == null) {
            return null;
        }
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c && c.getTagName().equals(name)) {
                return c;
            }
        }
        return null;
    }

    private static List<Element> children(Element e, String name) {
        List<Element> out = new ArrayList<>();
        if (e != null) {
            for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element c && c.getTagName().equals(name)) {
                    out.add(c);
                }
            }
        }
        return out;
    }

    private static String text(Element e, String name) {
        Element c = child(e, name);
        return c == null ? null : c.getTextContent().trim();
    }

    private static boolean property(Element pom, String name) {
        return "true".equals(text(child(pom, "properties"), name));
    }
}
