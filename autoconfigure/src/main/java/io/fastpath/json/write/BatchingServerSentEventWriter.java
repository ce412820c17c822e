package io.fastpath.json.write;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import io.fastpath.codec.WriteEvent;
import io.fastpath.codec.WriteListener;
import io.fastpath.json.BlackbirdTwins;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Hints;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpLogging;
import org.springframework.http.MediaType;
import org.springframework.http.ReactiveHttpOutputMessage;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.http.codec.ServerSentEventHttpMessageWriter;
import org.springframework.http.codec.json.JacksonJsonEncoder;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;

/**
 * A stock {@link ServerSentEventHttpMessageWriter} with a Jackson encoder whose events
 * are written in batches ({@link ReadyBatches}): the events the source has ready in one
 * buffer and one flush, where the stock writer gives each event three buffers and a flush
 * of its own. No event waits for another: a batch is flushed as soon as the source has
 * nothing more ready. The bytes are the stock writer's; JSON data is written with the
 * twin of the encoder's mapper, given twins, as {@link BatchingJsonEncoder} writes
 * values. A body that reaches Reactor Netty as it is written is paced by what it has sent
 * ({@link SendPacing}); batches the transport never took are released when the write ends
 * ({@link FlushedParts}), and the body is cancelled when the write ends first
 * ({@link BodyCancellation}).
 *
 * @author Fastpath
 */
final class BatchingServerSentEventWriter implements HttpMessageWriter<Object> {

	private static final Log logger = HttpLogging.forLogName(BatchingServerSentEventWriter.class);

	private static final MediaType DEFAULT_MEDIA_TYPE = new MediaType("text", "event-stream",
			StandardCharsets.UTF_8);

	private final ServerSentEventHttpMessageWriter stock;

	private final JacksonJsonEncoder encoder;

	private final int cap;

	private final @Nullable BlackbirdTwins twins;

	private final WriteListener listener;

	/**
	 * Batch what the given writer writes.
	 * @param stock the writer
	 * @param encoder its encoder
	 * @param cap the size past which a batch is flushed
	 * @param twins the twins to write data with, or {@code null} to write it with the
	 * encoder's mappers
	 * @param listener the listener to tell of each body written in batches
	 */
	BatchingServerSentEventWriter(ServerSentEventHttpMessageWriter stock, JacksonJsonEncoder encoder, int cap,
			@Nullable BlackbirdTwins twins, WriteListener listener) {
		this.stock = stock;
		this.encoder = encoder;
		this.cap = cap;
		this.twins = twins;
		this.listener = listener;
	}

	/** Return the writer whose output this batches. */
	ServerSentEventHttpMessageWriter getStock() {
		return this.stock;
	}

	@Override
	public List<MediaType> getWritableMediaTypes() {
		return this.stock.getWritableMediaTypes();
	}

	@Override
	public boolean canWrite(ResolvableType elementType, @Nullable MediaType mediaType) {
		return this.stock.canWrite(elementType, mediaType);
	}

	@Override
	public Mono<Void> write(Publisher<?> input, ResolvableType elementType, @Nullable MediaType mediaType,
			ReactiveHttpOutputMessage message, Map<String, Object> hints) {
		MediaType type = (mediaType != null && mediaType.getCharset() != null) ? mediaType : DEFAULT_MEDIA_TYPE;
		ResolvableType dataType = ServerSentEvent.class.isAssignableFrom(elementType.toClass())
				? elementType.getGeneric() : elementType;
		message.getHeaders().setContentType(type);
		ReadyBatches<Object> batches = new ReadyBatches<>(input, message.bufferFactory(),
				() -> new ServerSentEventBatchWriter(this.encoder, this.twins, dataType, type, hints, logger), this.cap,
				this.listener, WriteEvent.Kind.SERVER_SENT_EVENTS);
		if (!(message instanceof ServerHttpResponse) && !SendPacing.reachesReactorNetty(message)) {
			// The JDK's and Jetty's connectors end the write before they subscribe to the body
			return SendPacing.notPaced(message.writeAndFlushWith(parts(batches, hints)));
		}
		Mono<Void> write = BodyCancellation.cancelledWithWrite(batches,
				(body) -> FlushedParts.writeAndFlush(message, parts(body, hints)));
		return SendPacing.pacedIf(message, write);
	}

	/** Each batch as a part of its own, flushed after it, as the stock writer flushes each event. */
	private static Flux<Mono<DataBuffer>> parts(Flux<DataBuffer> batches, Map<String, Object> hints) {
		return batches.map((batch) -> {
			Hints.touchDataBuffer(batch, hints, logger);
			return Mono.just(batch).doOnDiscard(DataBuffer.class, DataBufferUtils::release);
		});
	}

	@Override
	public Mono<Void> write(Publisher<?> input, ResolvableType actualType, ResolvableType elementType,
			@Nullable MediaType mediaType, ServerHttpRequest request, ServerHttpResponse response,
			Map<String, Object> hints) {
		Map<String, Object> allHints = Hints.merge(hints,
				this.encoder.getEncodeHints(actualType, elementType, mediaType, request, response));
		return write(input, elementType, mediaType, response, allHints);
	}

}
