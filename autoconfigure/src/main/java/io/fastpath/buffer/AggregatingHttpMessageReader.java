package io.fastpath.buffer;

import java.util.Map;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.AbstractDataBufferDecoder;
import org.springframework.core.codec.Decoder;
import org.springframework.core.codec.Hints;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.MediaType;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.AbstractJacksonDecoder;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * Takes the place of a stock {@link DecoderHttpMessageReader} so that its whole-body path
 * ({@code readMono}: {@code @RequestBody T}, {@code bodyToMono}, {@code toEntity}) joins
 * the body with {@link DataBufferAggregator}, limited from the message's
 * {@code Content-Length}, instead of {@code DataBufferUtils.join}. A request's length
 * over the limit fails before the body is read; a response's when its first byte
 * arrives, as a response to {@code HEAD}, a 204 or a 304 announces a body that is not
 * sent. Everything else, including the streaming {@code read}, is the stock reader's.
 * <p>The aggregated body is handed to the decoder's own {@code decodeToMono} as a
 * {@code Mono}, which {@code DataBufferUtils.join} passes through untouched, so the
 * decoder keeps its own hints, context handling, logging and errors.
 * <p>Only decoders whose {@code decodeToMono} is "join with {@code maxInMemorySize}, then
 * decode" are supported (see {@link #supports(Decoder)}): for them the aggregator
 * applies exactly the limit the decoder would. It is a {@code DecoderHttpMessageReader}
 * of the same decoder, so that code that asks a reader for its decoder still finds it.
 *
 * @param <T> the type of objects read
 * @author Fastpath
 */
final class AggregatingHttpMessageReader<T> extends DecoderHttpMessageReader<T> {

	private static final boolean JACKSON_PRESENT = ClassUtils.isPresent("tools.jackson.databind.ObjectMapper",
			AggregatingHttpMessageReader.class.getClassLoader());

	private final ReadListener listener;

	/** Tells the listener of a body over the limit; one per reader, not per body. */
	private final Runnable limitExceeded;

	/**
	 * Decorate the given reader.
	 * @param delegate a stock reader whose decoder is {@linkplain #supports(Decoder) supported}
	 */
	AggregatingHttpMessageReader(DecoderHttpMessageReader<T> delegate) {
		this(delegate, ReadListener.NONE);
	}

	/**
	 * Decorate the given reader, telling the given listener of each whole body read.
	 * @param delegate a stock reader whose decoder is {@linkplain #supports(Decoder) supported}
	 * @param listener the listener to tell
	 */
	AggregatingHttpMessageReader(DecoderHttpMessageReader<T> delegate, ReadListener listener) {
		super(delegate.getDecoder());
		Assert.isTrue(supports(delegate.getDecoder()),
				() -> "Decoder " + delegate.getDecoder() + " does not aggregate with DataBufferUtils.join");
		Assert.notNull(listener, "'listener' must not be null");
		this.listener = listener;
		this.limitExceeded = () -> listener.onRead(ReadEvent.BUFFER_TOO_LARGE);
	}

	/**
	 * Whether the given decoder's whole-body path is a plain join limited by its
	 * {@code maxInMemorySize}: the {@code core.codec} data buffer decoders ({@code String},
	 * {@code byte[]}, {@code ByteBuffer}, {@code DataBuffer}, ...), the Jackson decoders and
	 * every {@link JoiningDecoder}.
	 * @param decoder the decoder to check
	 * @return whether {@link AggregatingHttpMessageReader} can decorate a reader of it
	 */
	static boolean supports(Decoder<?> decoder) {
		return decoder instanceof AbstractDataBufferDecoder<?> || decoder instanceof JoiningDecoder<?>
				|| (JACKSON_PRESENT && decoder instanceof AbstractJacksonDecoder<?>);
	}

	/**
	 * Read a whole body as the stock reader does, but aggregated by
	 * {@link DataBufferAggregator}. The server's variant, inherited, adds the decoder's
	 * server hints (Jackson's {@code @JsonView}, for one) and comes here.
	 */
	@Override
	public Mono<T> readMono(ResolvableType elementType, ReactiveHttpInputMessage message,
			Map<String, Object> hints) {
		MediaType contentType = getContentType(message);
		Map<String, Object> allHints = Hints.merge(hints, getReadHints(elementType, message));
		// The listener is told when the body is read, at subscription, not when it is assembled.
		return Mono.defer(() -> {
			this.listener.onRead(ReadEvent.BUFFER_WHOLE_BODY);
			return aggregateAndDecode(elementType, message, contentType, allHints);
		});
	}

	private Mono<T> aggregateAndDecode(ResolvableType elementType, ReactiveHttpInputMessage message,
			@Nullable MediaType contentType, Map<String, Object> allHints) {
		long contentLength = message.getHeaders().getContentLength();
		if (getDecoder() instanceof JoiningDecoder<?> joining && joining.gathersParts()) {
			// The decoder reads the buffers as they come, within its limit: no join. Only the
			// announced length is checked here, before the body is read.
			int maxByteCount = maxInMemorySize();
			if (message instanceof ServerHttpRequest && maxByteCount >= 0 && contentLength > maxByteCount) {
				this.limitExceeded.run();
				return Mono.error(DataBufferAggregator.limitExceeded(maxByteCount));
			}
			return getDecoder().decodeToMono(message.getBody(), elementType, contentType, allHints);
		}
		// A request's Content-Length always frames a body that follows, so one over the limit
		// fails before anything is read; a response's may describe a body not sent.
		Mono<DataBuffer> body = (message instanceof ServerHttpRequest)
				? DataBufferAggregator.aggregate(message.getBody(), maxInMemorySize(), contentLength,
						this.limitExceeded)
				: DataBufferAggregator.aggregateResponseBody(message.getBody(), maxInMemorySize(), contentLength,
						this.limitExceeded);
		return getDecoder().decodeToMono(body, elementType, contentType, allHints);
	}

	private int maxInMemorySize() {
		Decoder<T> decoder = getDecoder();
		if (decoder instanceof AbstractDataBufferDecoder<?> dataBufferDecoder) {
			return dataBufferDecoder.getMaxInMemorySize();
		}
		if (decoder instanceof JoiningDecoder<?> joiningDecoder) {
			return joiningDecoder.getMaxInMemorySize();
		}
		return ((AbstractJacksonDecoder<?>) decoder).getMaxInMemorySize();
	}

	@Override
	public String toString() {
		return "AggregatingHttpMessageReader[" + getDecoder() + "]";
	}

}
