package io.fastpath.multipart;

import java.nio.charset.Charset;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.DecodingException;
import org.springframework.http.MediaType;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.server.reactive.ServerHttpRequest;

import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;

/**
 * What the readers of parts and of part events share with the stock readers they replace:
 * the media type they read, a client's response left to the stock reader (a client gets a
 * client's errors and limits), no single value, and the error of a body without a boundary.
 *
 * @param <T> what is read: parts or part events
 * @author Fastpath
 */
abstract class SlicingMultipartReader<T> implements HttpMessageReader<T> {

	private static final List<MediaType> MEDIA_TYPES = List.of(MediaType.MULTIPART_FORM_DATA);

	private final Class<T> type;

	private final HttpMessageReader<T> clientReader;

	/** Told of a client's response read; a subclass tells it of what it reads itself. */
	final ReadListener listener;

	/**
	 * Read the given type from a server's request.
	 * @param type what is read
	 * @param clientReader the stock reader replaced, for what is not a server's request
	 * @param listener the listener to tell of a client's response read, at subscription
	 */
	SlicingMultipartReader(Class<T> type, HttpMessageReader<T> clientReader, ReadListener listener) {
		this.type = type;
		this.clientReader = clientReader;
		this.listener = listener;
	}

	@Override
	public final List<MediaType> getReadableMediaTypes() {
		return MEDIA_TYPES;
	}

	@Override
	public final boolean canRead(ResolvableType elementType, @Nullable MediaType mediaType) {
		return this.type.equals(elementType.toClass())
				&& (mediaType == null || MediaType.MULTIPART_FORM_DATA.isCompatibleWith(mediaType));
	}

	/** What a server's request holds, or, of anything else, what the stock reader reads. */
	@Override
	public final Flux<T> read(ResolvableType elementType, ReactiveHttpInputMessage message, Map<String, Object> hints) {
		if (!(message instanceof ServerHttpRequest)) {
			return Flux.defer(() -> {
				this.listener.onRead(ReadEvent.FORM_CLIENT_RESPONSE);
				return this.clientReader.read(elementType, message, hints);
			});
		}
		return readRequest(message);
	}

	/**
	 * Read a server's request.
	 * @param message the request
	 * @return what it holds
	 */
	abstract Flux<T> readRequest(ReactiveHttpInputMessage message);

	/**
	 * Read the message with the delimiter of its boundary, or fail as stock does when its
	 * type names none.
	 * @param message the message
	 * @param headersCharset the charset of the parts' headers, which the boundary is encoded in
	 * @param reading reads the message with the delimiter
	 * @return what it reads, or a {@link DecodingException}
	 */
	static <T> Flux<T> withDelimiter(ReactiveHttpInputMessage message, Charset headersCharset,
			Function<byte[], Flux<T>> reading) {
		byte[] delimiter = MultipartAssembly.delimiter(message, headersCharset);
		if (delimiter == null) {
			return Flux.error(new DecodingException("No multipart boundary found in Content-Type: \""
					+ message.getHeaders().getContentType() + "\""));
		}
		return reading.apply(delimiter);
	}

	@Override
	public final Mono<T> readMono(ResolvableType elementType, ReactiveHttpInputMessage message,
			Map<String, Object> hints) {
		return Mono.error(new UnsupportedOperationException(
				"Cannot read multipart request body into single " + this.type.getSimpleName()));
	}

}
