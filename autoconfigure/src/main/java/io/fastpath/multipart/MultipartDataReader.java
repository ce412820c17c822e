package io.fastpath.multipart;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Hints;
import org.springframework.core.log.LogFormatUtils;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.util.MultiValueMapAdapter;

import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;


/**
 * Reads a multipart form into the map of parts that {@code getMultipartData()} gives, in
 * place of Spring's {@link MultipartHttpMessageReader} over {@link SlicingPartReader}:
 * the parts go from the scan straight into the map ({@link MultipartDataMono}). Stock
 * collects them through its part reader, the part counter and a multimap, then copies the
 * multimap twice (a stream into a {@code HashMap}, that into a
 * {@code LinkedMultiValueMap}); for a small form that plumbing cost more than reading the
 * parts. The map has stock's entries in stock's order: one entry per name in the order
 * stock's {@code HashMap} gives them (not the order the parts came in), each with its
 * parts in order in a list of its own. It is the {@code HashMap} the parts were collected
 * in, as a {@link MultiValueMapAdapter}: as modifiable as stock's
 * {@link LinkedMultiValueMap}, whose copy of that {@code HashMap} gave nothing but its
 * type (a third of a kilobyte a form of five fields). Errors are those of the reader it
 * replaces over {@link PartCountingReader}: the part after the last allowed is freed and
 * the read fails with the limit's error ({@link PartLimit}), and the part reader's errors
 * are answered with 413 or 400 ({@link MultipartReaders#translateError}). Every part is
 * freed if the read fails or is cancelled; the parts of the map hold no request buffer,
 * and their files are the exchange's to delete when the request ends. A client's response
 * is read by the stock reader replaced, with a client's errors and limits. It stays a
 * {@code MultipartHttpMessageReader} for code that looks for one among the codecs: its
 * {@link #getPartReader() part reader} reads the same parts with the same limits. A
 * {@link ReadListener} is told of each body read, by the part reader that reads it, and
 * of each refused.
 *
 * @author Fastpath
 */
final class MultipartDataReader extends MultipartHttpMessageReader {

	private final @Nullable SlicingPartReader parts;

	private final PartLimit limit;

	private final MultipartHttpMessageReader clientReader;

	private final ReadListener listener;

	/**
	 * Read the map of parts of a server's request with the given part reader, at most
	 * the given number of parts.
	 * @param parts the part reader: Fastpath's, whose parts go straight into the map, or
	 * another, whose parts are counted on their way to stock's map
	 * @param limit the most parts a request may have, and the error of one more
	 * @param clientReader the stock reader replaced, for what is not a server's request:
	 * a client's response gets a client's errors and limits, not the server's
	 * @param listener the listener to tell of each body read or refused
	 */
	MultipartDataReader(HttpMessageReader<Part> parts, PartLimit limit, MultipartHttpMessageReader clientReader,
			ReadListener listener) {
		super(new PartCountingReader(parts, limit, listener));
		this.parts = (parts instanceof SlicingPartReader slicing) ? slicing : null;
		this.limit = limit;
		this.clientReader = clientReader;
		this.listener = listener;
		setEnableLoggingRequestDetails(clientReader.isEnableLoggingRequestDetails());
	}

	@Override
	public Mono<MultiValueMap<String, Part>> readMono(ResolvableType elementType, ReactiveHttpInputMessage message,
			Map<String, Object> hints) {

		if (!(message instanceof ServerHttpRequest)) {
			// told when the body is read, at subscription, as the form reader tells it
			return Mono.defer(() -> {
				this.listener.onRead(ReadEvent.FORM_CLIENT_RESPONSE);
				return this.clientReader.readMono(elementType, message, hints);
			});
		}
		SlicingPartReader slicing = this.parts;
		if (slicing == null) {
			// the part counter tells the listener
			return super.readMono(elementType, message, hints);
		}
		return new MultipartDataMono(message, slicing.settings(), this.limit, this.listener,
				(collected) -> toMultiValueMap(collected, hints));
	}

	private MultiValueMap<String, Part> toMultiValueMap(Map<String, List<Part>> collected, Map<String, Object> hints) {
		MultiValueMap<String, Part> map = new MultiValueMapAdapter<>(collected);
		if (logger.isDebugEnabled()) {
			// stock's line; the lambda only when it is logged
			String prefix = Hints.getLogPrefix(hints);
			LogFormatUtils.traceDebug(logger,
					(traceOn) -> prefix + "Parsed " + (isEnableLoggingRequestDetails()
							? LogFormatUtils.formatValue(map, !traceOn) : "parts " + map.keySet() + " (content masked)"));
		}
		return map;
	}

}
