package io.fastpath.multipart;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.PartEventHttpMessageReader;

/**
 * Native-image hints for {@link MultipartSettings}, which reads the settings of Spring's
 * part reader from its fields and its file storage's directory through its
 * {@code directory()} method, and {@link PartEventSettings}, which reads those of Spring's
 * part event reader. Without them the stock readers would simply stay.
 *
 * @author Fastpath
 */
final class MultipartRuntimeHints implements RuntimeHintsRegistrar {

	private static final String[] FIELDS = { "maxDiskUsagePerPart", "maxParts", "maxHeadersSize", "headersCharset",
			"fileStorage", "blockingOperationScheduler" };

	/** The fields {@link PartEventSettings} reads. */
	private static final String[] PART_EVENT_FIELDS = { "maxHeadersSize", "maxParts", "maxPartSize",
			"headersCharset" };

	private static final String FILE_STORAGE = "org.springframework.http.codec.multipart.FileStorage";

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.reflection().registerType(DefaultPartHttpMessageReader.class, (type) -> {
			for (String field : FIELDS) {
				type.withField(field);
			}
		});
		hints.reflection().registerType(PartEventHttpMessageReader.class, (type) -> {
			for (String field : PART_EVENT_FIELDS) {
				type.withField(field);
			}
		});
		for (String storage : new String[] { FILE_STORAGE, FILE_STORAGE + "$PathFileStorage",
				FILE_STORAGE + "$TempFileStorage" }) {
			hints.reflection().registerType(TypeReference.of(storage),
					(type) -> type.withMethod("directory", List.of(), ExecutableMode.INVOKE));
		}
	}

}
