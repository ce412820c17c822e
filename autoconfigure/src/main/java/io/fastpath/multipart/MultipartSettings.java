package io.fastpath.multipart;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.Charset;
import java.nio.file.Path;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.util.ReflectionUtils;

/**
 * The settings of a stock {@link DefaultPartHttpMessageReader}, which the reader taking
 * its place follows. The stock reader has setters but, the in-memory limit aside, no
 * getters, and Boot ({@code spring.webflux.multipart.*}) and applications configure it
 * through a codec customizer, so they are read from its fields. Where that fails (a
 * Spring version that renamed them), there are no settings and the stock reader stays.
 *
 * @param maxInMemorySize bytes of a part kept in memory (-1 for no limit); a text field
 * over it fails, a file part goes to disk
 * @param maxDiskUsagePerPart bytes of a part on disk (-1 for no limit)
 * @param maxParts most parts (-1 for no limit)
 * @param maxHeadersSize bytes of the headers of each part
 * @param headersCharset the charset of the part headers
 * @param fileStorageDirectory where parts over the in-memory limit are stored
 * @param blockingScheduler where files are written, copied and deleted
 * @author Fastpath
 */
record MultipartSettings(int maxInMemorySize, long maxDiskUsagePerPart, int maxParts, int maxHeadersSize,
		Charset headersCharset, Mono<Path> fileStorageDirectory, Scheduler blockingScheduler) {

	/**
	 * Read the settings of the given stock reader.
	 * @param stock the reader
	 * @return its settings, or {@code null} if they cannot be read
	 */
	static @Nullable MultipartSettings of(DefaultPartHttpMessageReader stock) {
		try {
			Object storage = field(stock, "fileStorage");
			Method directory = ReflectionUtils.findMethod(storage.getClass(), "directory");
			if (directory == null) {
				return null;
			}
			ReflectionUtils.makeAccessible(directory);
			Scheduler scheduler = (Scheduler) fieldOrNull(stock, "blockingOperationScheduler");
			return new MultipartSettings(stock.getMaxInMemorySize(), (long) field(stock, "maxDiskUsagePerPart"),
					(int) field(stock, "maxParts"), (int) field(stock, "maxHeadersSize"),
					(Charset) field(stock, "headersCharset"),
					directory(directory, storage),
					(scheduler != null) ? scheduler : Schedulers.boundedElastic());
		}
		catch (RuntimeException ex) {
			// a field renamed, retyped or inaccessible: stay on the stock reader
			return null;
		}
	}

	@SuppressWarnings("unchecked")
	private static Mono<Path> directory(Method directory, Object storage) {
		Object result = ReflectionUtils.invokeMethod(directory, storage);
		if (!(result instanceof Mono<?> mono)) {
			throw new IllegalStateException("No file storage directory");
		}
		return (Mono<Path>) mono;
	}

	static Object field(Object target, String name) {
		Object value = fieldOrNull(target, name);
		if (value == null) {
			throw new IllegalStateException("No value of " + name);
		}
		return value;
	}

	static @Nullable Object fieldOrNull(Object target, String name) {
		Field field = ReflectionUtils.findField(target.getClass(), name);
		if (field == null) {
			throw new IllegalStateException("No field " + name);
		}
		ReflectionUtils.makeAccessible(field);
		return ReflectionUtils.getField(field, target);
	}

}
