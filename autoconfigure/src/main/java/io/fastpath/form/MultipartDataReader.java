package io.fastpath.form;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import reactor.core.publisher.Mono;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Hints;
import org.springframework.core.log.LogFormatUtils;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;
import org.springframework.http.codec.multipart.Part;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;

/**
 * Reads a multipart form into the map of parts that {@code getMultipartData()} gives, in
 * place of Spring's {@link MultipartHttpMessageReader} over {@link SlicingPartReader}: the
 * parts go from the scan straight into the map. Stock collects them through its part
 * reader, the part counter and a multimap, then copies the multimap twice (a stream into
 * a {@code HashMap}, that into a {@code LinkedMultiValueMap}); for a small form that
 * plumbing cost more than reading the parts. The map is stock's: one entry per name in
 * the order stock's {@code HashMap} gives them (not the order the parts came in), each
 * with its parts in order, as a {@link LinkedMultiValueMap}. Errors are those of the
 * reader it replaces over {@link PartCountingReader}: the part after the last allowed is
 * freed and the read fails with {@link TooManyFormFieldsException}, and the part reader's
 * errors are answered with 413 or 400 ({@link RequestForm#translateMultipartError}).
 * Every part is freed if the read fails or is cancelled; the parts of the map are the
 * exchange's to delete when the request ends. It stays a
 * {@code MultipartHttpMessageReader} for code that looks for one among the codecs: its
 * {@link #getPartReader() part reader} reads the same parts with the same limits.
 *
 * @author Fastpath
 */
final class MultipartDataReader extends MultipartHttpMessageReader {

	private final SlicingPartReader parts;

	private final int maxParts;

	MultipartDataReader(SlicingPartReader parts, int maxParts) {
		super(new PartCountingReader(parts, maxParts));
		this.parts = parts;
		this.maxParts = maxParts;
	}

	@Override
	public Mono<MultiValueMap<String, Part>> readMono(ResolvableType elementType, ReactiveHttpInputMessage message,
			Map<String, Object> hints) {

		return this.parts.parts(message)
			.collect(() -> new PartsByName(this.maxParts), PartsByName::add)
			.map((collected) -> toMultiValueMap(collected, hints))
			// downstream of collect, whose container is discarded when it fails or is cancelled
			.doOnDiscard(Object.class, MultipartDataReader::discard)
			.onErrorMap(RequestForm::translateMultipartError);
	}

	private MultiValueMap<String, Part> toMultiValueMap(PartsByName collected, Map<String, Object> hints) {
		MultiValueMap<String, Part> map = new LinkedMultiValueMap<>(collected.byName);
		if (logger.isDebugEnabled()) {
			// stock's line; the lambda only when it is logged
			String prefix = Hints.getLogPrefix(hints);
			LogFormatUtils.traceDebug(logger,
					(traceOn) -> prefix + "Parsed " + (isEnableLoggingRequestDetails()
							? LogFormatUtils.formatValue(map, !traceOn) : "parts " + map.keySet() + " (content masked)"));
		}
		return map;
	}

	private static void discard(Object discarded) {
		if (discarded instanceof PartsByName collected) {
			collected.byName.values().forEach((named) -> named.forEach(SlicingPartReader::discard));
		}
		else {
			SlicingPartReader.discard(discarded);
		}
	}

	/**
	 * The parts read so far, by name, and at most the limit. Stock's multimap is a
	 * {@code HashMap} filled in the order the parts come, copied into another in its own
	 * order: one filled the same way iterates in that order.
	 */
	private static final class PartsByName {

		private final HashMap<String, List<Part>> byName = new HashMap<>();

		private final int maxParts;

		private int count;

		PartsByName(int maxParts) {
			this.maxParts = maxParts;
		}

		void add(Part part) {
			if (++this.count > this.maxParts) {
				SlicingPartReader.discard(part);
				throw new TooManyFormFieldsException(this.maxParts);
			}
			this.byName.computeIfAbsent(part.name(), (name) -> new ArrayList<>(1)).add(part);
		}

	}

}
