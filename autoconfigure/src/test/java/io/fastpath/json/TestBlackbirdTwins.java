package io.fastpath.json;

import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import tools.jackson.databind.JacksonModule;

/**
 * Makes {@link BlackbirdTwins} for the tests of other packages, whose constructors are
 * the package's own: with Blackbird, or with a module and a log of a test's own.
 */
public final class TestBlackbirdTwins {

	private TestBlackbirdTwins() {
	}

	/**
	 * Twins that add Blackbird.
	 * @param use what they are for
	 * @return the twins
	 */
	public static BlackbirdTwins of(BlackbirdTwins.Use use) {
		return new BlackbirdTwins(use);
	}

	/**
	 * Twins that add the given module and log to the given log.
	 * @param use what they are for
	 * @param logger the log
	 * @param module the module each twin adds
	 * @return the twins
	 */
	public static BlackbirdTwins of(BlackbirdTwins.Use use, Log logger, Supplier<JacksonModule> module) {
		return new BlackbirdTwins(use, logger, module);
	}

}
