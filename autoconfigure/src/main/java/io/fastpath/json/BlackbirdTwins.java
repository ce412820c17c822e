package io.fastpath.json;

import java.lang.reflect.Type;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.module.blackbird.BlackbirdModule;

import org.springframework.http.codec.json.JacksonJsonEncoder;

/**
 * The mappers Fastpath reads or writes with: for each application mapper, a twin rebuilt
 * from it ({@link JsonMapper#rebuild()}: same modules, features, constraints, views,
 * injectables) that adds Jackson's {@link BlackbirdModule}. Blackbird calls constructors,
 * factories, setters and getters through generated lambdas instead of reflection, which
 * matters most for records and {@code @JsonCreator}s: Jackson calls those through
 * {@code invokeWithArguments}, spreading an array per call. The application's mapper is
 * left as configured: application code uses it unchanged.
 * <p>An application mapper that cannot be twinned is used as it is, and the log says so
 * once per reason, at INFO (then at DEBUG): a mapper that already has Blackbird or
 * Afterburner, a subclass of {@code JsonMapper} (which a rebuild would not reproduce), a
 * Blackbird that fails to register. A type on which the twin fails (Blackbird generating
 * or linking its accessors across class loaders, say) is read or written with the
 * application's mapper from then on, and the log says so once per type, at WARN.
 * <p>Each twin is kept as long as its application mapper is reachable, and no longer: the
 * twin holds no reference to it. Reading and writing have twins of their own, whose
 * failures are told apart.
 * <p>Public for the writers of {@code io.fastpath.json.write}, not an API for applications.
 *
 * @author Fastpath
 */
public final class BlackbirdTwins {

	private static final String BLACKBIRD_PACKAGE = BlackbirdModule.class.getPackageName();

	/** Modules whose bytecode or lambda generation Blackbird's would repeat or conflict with. */
	private static final String[] OPTIMIZING_MODULES = { BlackbirdModule.class.getName(),
			"tools.jackson.module.afterburner.AfterburnerModule" };

	private final Use use;

	private final Log logger;

	/** The module each twin adds: Blackbird, but for tests that plant a failing one. */
	private final Supplier<JacksonModule> blackbird;

	/** Weak keys: an entry lives as long as the application mapper, whatever the GC does. */
	private final Map<JsonMapper, Optional<JsonMapper>> twins = Collections.synchronizedMap(new WeakHashMap<>());

	/** Why mappers were not twinned, told once each. */
	private final Set<String> reasonsTold = ConcurrentHashMap.newKeySet();

	/** Types the twins failed on, used with the application's mappers. */
	private final Set<Type> failedTypes = ConcurrentHashMap.newKeySet();

	/**
	 * Twins for the given use, which add Blackbird; made by {@link BlackbirdAvailability},
	 * which checks that Blackbird is there.
	 * @param use what the twins are for
	 */
	BlackbirdTwins(Use use) {
		this(use, LogFactory.getLog(BlackbirdTwins.class), BlackbirdModule::new);
	}

	/**
	 * Twins for the given use, which add the given module: a test's way to plant a module
	 * that fails, and to read what is logged.
	 * @param use what the twins are for
	 * @param logger where to tell what could not be twinned and what failed
	 * @param blackbird the module each twin adds
	 */
	BlackbirdTwins(Use use, Log logger, Supplier<JacksonModule> blackbird) {
		this.use = use;
		this.logger = logger;
		this.blackbird = blackbird;
	}

	/**
	 * The mapper to use for the given type: the twin of the application's mapper, or the
	 * mapper itself if it cannot be twinned or its twin failed on the type.
	 * @param mapper the application's mapper
	 * @param type the type to read or write
	 * @return the mapper to use
	 */
	public JsonMapper mapperFor(JsonMapper mapper, Type type) {
		if (this.failedTypes.contains(type)) {
			return mapper;
		}
		Optional<JsonMapper> twin = this.twins.get(mapper);
		if (twin == null) {
			// Looked up first: a bound method reference is an allocation per call
			twin = this.twins.computeIfAbsent(mapper, this::twin);
		}
		return twin.orElse(mapper);
	}

	/**
	 * The twin to write the given type with, when the encoder writes it with its own
	 * mapper. A mapper registered on the encoder for the type
	 * ({@code registerMappersForType}, as Spring Boot registers Actuator's isolated
	 * mapper) is the application's choice for that type alone, and is used as it is.
	 * @param encoder the stock encoder
	 * @param selected the mapper the encoder selected for the type and media type
	 * @param type the type to write
	 * @return the twin, or {@code null} to write with the selected mapper
	 */
	public @Nullable JsonMapper twinForWriting(JacksonJsonEncoder encoder, JsonMapper selected, Type type) {
		if (selected != encoder.getMapper()) {
			return null;
		}
		JsonMapper twin = mapperFor(selected, type);
		return (twin != selected) ? twin : null;
	}

	/**
	 * Use the application's mappers for the given type from now on: a twin failed on it.
	 * Told once per type.
	 * @param type the type
	 * @param failure what the twin raised
	 */
	public void failed(Type type, Throwable failure) {
		if (this.failedTypes.add(type)) {
			this.logger.warn("JSON of type " + type.getTypeName() + " is " + this.use.participle()
					+ " with the application's mapper from now on: its twin that adds Blackbird failed on it with "
					+ failure, failure);
		}
	}

	/**
	 * Whether a failure raised while a twin read or wrote a value is the twin's own, not
	 * the input's or the application's: a linkage or access error (Blackbird's generated
	 * accessors across class loaders), or an error thrown by Blackbird's code. Databind's
	 * exceptions for wrong input or values and the application's own are not.
	 * @param failure what reading or writing raised
	 * @return whether the application's mapper may succeed
	 */
	public static boolean isTwinFailure(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof LinkageError) {
				return true;
			}
			if (cause.getCause() == null) {
				StackTraceElement[] frames = cause.getStackTrace();
				return frames.length > 0 && frames[0].getClassName().startsWith(BLACKBIRD_PACKAGE);
			}
		}
		return false;
	}

	private Optional<JsonMapper> twin(JsonMapper mapper) {
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
			return Optional.of(mapper.rebuild().addModule(this.blackbird.get()).build());
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

	/**
	 * Say why a mapper is used as it is: at INFO the first time for each reason (an
	 * application that builds mappers per call must not log per request), then at DEBUG.
	 */
	private void logNotOptimized(JsonMapper mapper, String reason) {
		String message = "JSON is " + this.use.participle() + " with the application's mapper " + mapper.getClass().getSimpleName() + "@"
				+ Integer.toHexString(System.identityHashCode(mapper)) + ", not with a twin that adds Blackbird, because "
				+ reason;
		if (this.reasonsTold.add(reason)) {
			this.logger.info(message);
		}
		else if (this.logger.isDebugEnabled()) {
			this.logger.debug(message);
		}
	}

	/** What twins are made for, each use with twins and failures of its own. */
	public enum Use {

		READING("read"), WRITING("written");

		private final String participle;

		Use(String participle) {
			this.participle = participle;
		}

		/** How the log says what is done with JSON: "read" or "written". */
		String participle() {
			return this.participle;
		}

	}

}
