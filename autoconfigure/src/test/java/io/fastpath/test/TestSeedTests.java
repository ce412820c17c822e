package io.fastpath.test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * Every random test can be repeated from one property: {@link TestSeed}'s randoms depend
 * on the seed and purpose only, a failure after one was taken names the seed, and no test
 * makes a random of its own that the seed does not decide.
 */
class TestSeedTests {

	private static final Pattern UNSEEDED = Pattern
		.compile("new (java\\.util\\.)?(Random|SplittableRandom)\\(\\s*\\)|Math\\.random\\(|ThreadLocalRandom\\.current\\(");

	@Test
	void randomsForOnePurposeDrawTheSameValues() {
		assertThat(TestSeed.random("a").nextLong()).isEqualTo(TestSeed.random("a").nextLong());
		assertThat(TestSeed.random("a").nextLong()).isNotEqualTo(TestSeed.random("b").nextLong());
	}

	@Test
	void failureOfATestThatTookARandomNamesTheSeed() {
		TestSeed extension = new TestSeed();
		ExtensionContext context = mock(ExtensionContext.class);
		given(context.getDisplayName()).willReturn("aFailingTest()");
		extension.beforeEach(context);
		TestSeed.random("failing");
		AssertionError failure = new AssertionError("boom");
		// The seed is printed as the test fails, where a report might not show the
		// suppressed exception; caught here, not printed in the build's output
		ByteArrayOutputStream printed = new ByteArrayOutputStream();
		PrintStream err = System.err;
		System.setErr(new PrintStream(printed, true, StandardCharsets.UTF_8));
		try {
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> extension.handleTestExecutionException(context, failure))
				.satisfies((thrown) -> assertThat(thrown.getSuppressed()).singleElement()
					.satisfies((seed) -> assertThat(seed.getMessage()).contains("-Dfastpath.seed=" + TestSeed.SEED)));
		}
		finally {
			System.setErr(err);
		}
		assertThat(printed.toString(StandardCharsets.UTF_8))
			.isEqualTo("aFailingTest() failed: repeat with -Dfastpath.seed=" + TestSeed.SEED + System.lineSeparator());
	}

	@Test
	void failureOfATestThatTookNoRandomIsLeftAsItIs() {
		TestSeed extension = new TestSeed();
		ExtensionContext context = mock(ExtensionContext.class);
		extension.beforeEach(context);
		AssertionError failure = new AssertionError("boom");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> extension.handleTestExecutionException(context, failure))
			.satisfies((thrown) -> assertThat(thrown.getSuppressed()).isEmpty());
	}

	@Test
	void noTestMakesARandomThatTheSeedDoesNotDecide() throws IOException {
		List<String> unseeded;
		try (Stream<Path> files = Stream.of(Path.of("src/test/java"), Path.of("../sample/src/test/java"))
			.filter(Files::isDirectory)
			.flatMap(TestSeedTests::javaFiles)) {
			unseeded = files.filter((file) -> !file.endsWith("TestSeed.java") && !file.endsWith("TestSeedTests.java"))
				.filter((file) -> UNSEEDED.matcher(read(file)).find())
				.map(Path::toString)
				.toList();
		}
		assertThat(unseeded).as("test sources with an unseeded random (use TestSeed.random)").isEmpty();
	}

	private static Stream<Path> javaFiles(Path root) {
		try {
			return Files.walk(root).filter((file) -> file.toString().endsWith(".java"));
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static String read(Path file) {
		try {
			return Files.readString(file, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
