package io.fastpath.json;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NativeDetector;
import org.springframework.util.ClassUtils;

/**
 * Where twins that add Blackbird can be made: Blackbird is on the class path, and the
 * application does not run in a native image (Blackbird generates classes at run time).
 * Apart from {@link BlackbirdTwins}, which links against Blackbird's classes, so that
 * asking costs nothing where Blackbird is missing.
 * <p>Public for the writers of {@code io.fastpath.json.write}, not an API for applications.
 *
 * @author Fastpath
 */
public final class BlackbirdAvailability {

	private static final Log logger = LogFactory.getLog(BlackbirdAvailability.class);

	private static final boolean blackbirdPresent = ClassUtils
		.isPresent("tools.jackson.module.blackbird.BlackbirdModule", BlackbirdAvailability.class.getClassLoader());

	private BlackbirdAvailability() {
	}

	/**
	 * Twins for the given use, where they are wanted and can be made.
	 * @param wanted whether the application wants them
	 * @param use what they are for
	 * @return the twins, or {@code null} to use the application's mappers as they are
	 */
	public static @Nullable BlackbirdTwins twins(boolean wanted, BlackbirdTwins.Use use) {
		if (!wanted || NativeDetector.inNativeImage()) {
			return null;
		}
		if (!blackbirdPresent) {
			logger.info("JSON is " + use.participle() + " without Blackbird: jackson-module-blackbird is not on "
					+ "the class path (the Fastpath starter brings it)");
			return null;
		}
		return new BlackbirdTwins(use);
	}

}
