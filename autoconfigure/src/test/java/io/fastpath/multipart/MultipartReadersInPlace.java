package io.fastpath.multipart;

import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;

/**
 * For tests outside this package: Fastpath's multipart readers among a codec's readers,
 * whose types are internal, and the settings they were built with.
 */
public final class MultipartReadersInPlace {

	private MultipartReadersInPlace() {
	}

	/**
	 * Whether the map of parts that {@code getMultipartData()} gives is read by Fastpath's
	 * reader among the given ones.
	 * @param readers the readers to look through
	 * @return whether one of them is Fastpath's multipart map reader
	 */
	public static boolean readsMultipartData(List<HttpMessageReader<?>> readers) {
		return readers.stream().anyMatch(MultipartDataReader.class::isInstance);
	}

	/**
	 * The settings of Fastpath's multipart part reader among the given readers.
	 * @param readers the readers to look through
	 * @return its settings, or {@code null} if the part reader is stock's
	 */
	public static @Nullable PartReaderSettings partReaderSettings(List<HttpMessageReader<?>> readers) {
		for (HttpMessageReader<?> reader : readers) {
			if (reader instanceof MultipartHttpMessageReader multipart
					&& multipart.getPartReader() instanceof PartCountingReader counting
					&& counting.parts() instanceof SlicingPartReader parts) {
				MultipartSettings settings = parts.settings();
				return new PartReaderSettings(settings.maxInMemorySize(), settings.maxDiskUsagePerPart(),
						settings.maxParts(), settings.maxHeadersSize(), settings.headersCharset(),
						settings.fileStorageDirectory().block());
			}
		}
		return null;
	}

	/**
	 * The settings of Fastpath's multipart part reader.
	 * @param maxInMemorySize bytes of a part in memory
	 * @param maxDiskUsagePerPart bytes of a part on disk
	 * @param maxParts most parts
	 * @param maxHeadersSize bytes of a part's headers
	 * @param headersCharset charset of the headers
	 * @param directory where parts are spooled
	 */
	public record PartReaderSettings(int maxInMemorySize, long maxDiskUsagePerPart, int maxParts,
			int maxHeadersSize, Charset headersCharset, @Nullable Path directory) {
	}

	/**
	 * The settings of Fastpath's {@code Flux<PartEvent>} reader among the given readers.
	 * @param readers the server's readers
	 * @return its settings, or {@code null} if the stock reader is in place
	 */
	public static @Nullable PartEventReaderSettings partEventReaderSettings(List<HttpMessageReader<?>> readers) {
		for (HttpMessageReader<?> reader : readers) {
			if (reader instanceof SlicingPartEventReader events) {
				PartEventSettings settings = events.settings();
				return new PartEventReaderSettings(settings.maxInMemorySize(), settings.maxHeadersSize(),
						settings.maxParts(), settings.maxPartSize(), settings.headersCharset());
			}
		}
		return null;
	}

	/** What {@link #partEventReaderSettings} gives. */
	public record PartEventReaderSettings(int maxInMemorySize, int maxHeadersSize, int maxParts, long maxPartSize,
			Charset headersCharset) {
	}

}
