package io.fastpath.test;

import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;

import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * The one seed of every random test: {@code -Dfastpath.seed=<n>} (a fixed default, so that
 * the build is repeatable), or {@code -Dfastpath.seed=random} for a fresh one, printed
 * when first used. Tests take their {@link Random}s from here, so that one property
 * repeats any run.
 * <p>Registered for every test class through JUnit's extension auto-detection: a test
 * that took a {@link Random} from here and fails has the seed added to its failure, as
 * a suppressed exception, and printed.
 */
public final class TestSeed implements BeforeEachCallback, TestExecutionExceptionHandler {

	private static final String DEFAULT = "20261130";

	/** The seed of this run. */
	public static final long SEED = parse(System.getProperty("fastpath.seed", DEFAULT));

	private static final ThreadLocal<Boolean> used = ThreadLocal.withInitial(() -> false);

	static {
		// A fixed seed is the property's or the default; a drawn one is known only from here
		if ("random".equals(System.getProperty("fastpath.seed"))) {
			System.out.println("Random tests use -Dfastpath.seed=" + SEED);
		}
	}

	private static long parse(String property) {
		// The only unseeded random of the tests: it makes the seed, which is printed.
		return "random".equals(property) ? ThreadLocalRandom.current().nextLong() : Long.parseLong(property);
	}

	/**
	 * A random of its own for each purpose, derived from the seed: adding a random test
	 * does not change what the others draw.
	 * @param purpose what the random is for, such as the test's name
	 * @return a random
	 */
	public static Random random(String purpose) {
		used.set(true);
		return new Random(mix(SEED + mix(purpose.hashCode())));
	}

	/**
	 * MurmurHash3's finalizer: nearby seeds give unrelated randoms.
	 * @param value a value
	 * @return the value, mixed
	 */
	public static long mix(long value) {
		long mixed = (value ^ (value >>> 33)) * 0xFF51AFD7ED558CCDL;
		mixed = (mixed ^ (mixed >>> 33)) * 0xC4CEB9FE1A85EC53L;
		return mixed ^ (mixed >>> 33);
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		used.set(false);
	}

	@Override
	public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
		if (used.get()) {
			String repeat = "repeat with -Dfastpath.seed=" + SEED;
			System.err.println(context.getDisplayName() + " failed: " + repeat);
			throwable.addSuppressed(new SeedReport(repeat));
		}
		throw throwable;
	}

	/** Carries the seed into a failure's report. */
	private static final class SeedReport extends RuntimeException {

		SeedReport(String message) {
			super(message, null, false, false);
		}

	}

}
