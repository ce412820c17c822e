package io.fastpath;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.fastpath.autoconfigure.FastpathProperties;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The public API listed in {@code docs/public-api.md} is exactly the set of public types
 * the library compiles: a type made public, or made internal, without the list saying so
 * fails here.
 */
class PublicApiTests {

	private static final Path LIST = Path.of("..", "docs", "public-api.md");

	/** A list entry: a bullet that starts with a type's fully qualified name in backticks. */
	private static final Pattern ENTRY = Pattern.compile("^- `(io\\.fastpath\\.[\\w.]+)`", Pattern.MULTILINE);

	@Test
	void theDocumentedPublicApiIsExactlyThePublicTypes() throws Exception {
		assertThat(documentedTypes()).containsExactlyElementsOf(publicTypes());
	}

	private static Set<String> documentedTypes() throws IOException {
		Set<String> types = new TreeSet<>();
		Matcher entry = ENTRY.matcher(Files.readString(LIST, StandardCharsets.UTF_8));
		while (entry.find()) {
			types.add(entry.group(1));
		}
		return types;
	}

	/** Every type in the main classes that code outside the library can name. */
	private static Set<String> publicTypes() throws IOException, URISyntaxException, ClassNotFoundException {
		Path classes = Path.of(FastpathProperties.class.getProtectionDomain().getCodeSource().getLocation().toURI());
		Set<String> types = new TreeSet<>();
		try (Stream<Path> files = Files.walk(classes.resolve("io"))) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".class")).toList()) {
				String binaryName = classes.relativize(file).toString().replace(".class", "").replace('/', '.');
				Class<?> type = Class.forName(binaryName, false, PublicApiTests.class.getClassLoader());
				if (isVisible(type)) {
					types.add(type.getCanonicalName());
				}
			}
		}
		return types;
	}

	/** Public, and so is every type it is nested in (anonymous and local types are not). */
	private static boolean isVisible(Class<?> type) {
		for (Class<?> current = type; current != null; current = current.getEnclosingClass()) {
			if (!Modifier.isPublic(current.getModifiers()) || current.isAnonymousClass() || current.isLocalClass()) {
				return false;
			}
		}
		return true;
	}

}
