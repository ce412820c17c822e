package io.fastpath.json;

import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;
import java.util.function.UnaryOperator;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.module.blackbird.BlackbirdModule;

/**
 * The mappers Fastpath reads with: for each application mapper, a twin rebuilt from it
 * ({@link JsonMapper#rebuild()}: same modules, features, constraints, views, injectables)
 * that adds Jackson's {@link BlackbirdModule}. Blackbird calls constructors, factories
 * and setters through generated lambdas instead of reflection, which matters most for
 * records and {@code @JsonCreator}s: Jackson calls those through
 * {@code invokeWithArguments}, spreading an array per call. The application's mapper is
 * left as configured: writing and application code use it unchanged.
 * <p>An application mapper that cannot be twinned is read with as it is, and the log says
 * so once: a mapper that already has Blackbird or Afterburner, a subclass of
 * {@code JsonMapper} (which a rebuild would not reproduce), a Blackbird that fails to
 * register. Types whose members Blackbird cannot reach are read by reflection, as
 * Blackbird itself falls back.
 * <p>Each twin is kept as long as its application mapper is reachable, and no longer: the
 * twin holds no reference to it.
 *
 * @author Fastpath
 */
final class BlackbirdTwins implements UnaryOperator<JsonMapper> {

	private static final Log logger = LogFactory.getLog(BlackbirdTwins.class);

	/** Modules whose bytecode or lambda generation Blackbird's would repeat or conflict with. */
	private static final String[] OPTIMIZING_MODULES = { BlackbirdModule.class.getName(),
			"tools.jackson.module.afterburner.AfterburnerModule" };

	/** Weak keys: an entry lives as long as the application mapper, whatever the GC does. */
	private final Map<JsonMapper, Optional<JsonMapper>> twins = Collections.synchronizedMap(new WeakHashMap<>());

	@Override
	public JsonMapper apply(JsonMapper mapper) {
		return this.twins.computeIfAbsent(mapper, BlackbirdTwins::twin).orElse(mapper);
	}

	private static Optional<JsonMapper> twin(JsonMapper mapper) {
		if (mapper.getClass() != JsonMapper.class) {
			logNotOptimized(mapper, "it is a " + mapper.getClass().getName() + ", which a rebuild would not reproduce");
			return Optional.empty();
		}
		for (JacksonModule module : mapper.registeredModules()) {
			String optimizing = optimizingModule(module.getClass());
			if (optimizing != null) {
				logNotOptimized(mapper, "it already has " + optimizing);
				return Optional.empty();
			}
		}
		try {
			return Optional.of(mapper.rebuild().addModule(new BlackbirdModule()).build());
		}
		catch (RuntimeException | LinkageError ex) {
			logNotOptimized(mapper, "Blackbird could not be registered: " + ex);
			return Optional.empty();
		}
	}

	private static @Nullable String optimizingModule(Class<?> moduleClass) {
		for (Class<?> type = moduleClass; type != null; type = type.getSuperclass()) {
			for (String optimizing : OPTIMIZING_MODULES) {
				if (type.getName().equals(optimizing)) {
					return type.getSimpleName();
				}
			}
		}
		return null;
	}

	private static void logNotOptimized(JsonMapper mapper, String reason) {
		logger.info("JSON is read with the application's mapper " + mapper.getClass().getSimpleName() + "@"
				+ Integer.toHexString(System.identityHashCode(mapper)) + ", not with a twin that adds Blackbird, because "
				+ reason);
	}

}
