package io.fastpath.json.write;

import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Hints;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ReactiveHttpOutputMessage;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.server.reactive.ServerHttpResponse;

/**
 * The stock writer of a {@link BatchingJsonEncoder}, but for one thing: a JSON array
 * whose source completed while its first batch was filled (a {@code Flux} of a few
 * values, an empty one) is written as the stock writer writes a {@code Mono}, as one
 * buffer with a {@code Content-Length}, where a {@code Flux} otherwise goes out in
 * chunks. The body's bytes are the same; on Reactor Netty that one buffer goes out with
 * the headers in a single write and without chunk framing, cheaper than a chunked
 * {@code Flux} of the same bytes. A streaming media type, a {@code Mono}, a body of more
 * than one batch, and a request body ({@code WebClient}) are written in the stock
 * writer's way, but that a body that reaches Reactor Netty as it is written is paced by
 * what it has sent ({@link SendPacing}), a streaming body's batches are released when the
 * write ends before the transport took them ({@link FlushedParts}), and a body is
 * cancelled when its write ends first ({@link BodyCancellation}).
 *
 * @author Fastpath
 */
final class BatchingJsonWriter extends EncoderHttpMessageWriter<Object> {

	BatchingJsonWriter(BatchingJsonEncoder encoder) {
		super(encoder);
	}

	@Override
	public Mono<Void> write(Publisher<?> inputStream, ResolvableType elementType, @Nullable MediaType mediaType,
			ReactiveHttpOutputMessage message, Map<String, Object> hints) {
		if (inputStream instanceof Mono) {
			return super.write(inputStream, elementType, mediaType, message, hints);
		}
		Mono<Void> write;
		if (message instanceof ServerHttpResponse) {
			// Responses only: a client connector may subscribe to a request body after the
			// write has returned (the JDK's and Jetty's do), later than the first batch can be
			// looked at.
			OneBatchBody body = new OneBatchBody();
			write = super.write(inputStream, elementType, mediaType, new BatchedMessage(message, body),
					Hints.merge(hints, OneBatchBody.HINT, body));
		}
		else if (SendPacing.reachesReactorNetty(message)) {
			// Paced or not (a decorator that writes the body itself): cancelled with the write
			write = super.write(inputStream, elementType, mediaType, new BatchedMessage(message, null), hints);
		}
		else {
			// The JDK's and Jetty's connectors end the write before they subscribe to the body:
			// its end says nothing of the body's
			write = super.write(inputStream, elementType, mediaType, message, hints);
		}
		return SendPacing.pacedIf(message, write);
	}

	/**
	 * The message written to, a server response or a request that Reactor Netty sends,
	 * whose write ends when the body has gone out: a response body that went out as one
	 * batch is written as a {@code Mono} of it, with its length; the batches of a streaming
	 * body, each flushed, are released when the write ends before the transport took them
	 * ({@link FlushedParts}); and the body is cancelled when the write ends first
	 * ({@link BodyCancellation}).
	 */
	static final class BatchedMessage implements ReactiveHttpOutputMessage {

		private final ReactiveHttpOutputMessage delegate;

		private final @Nullable OneBatchBody body;

		BatchedMessage(ReactiveHttpOutputMessage delegate, @Nullable OneBatchBody body) {
			this.delegate = delegate;
			this.body = body;
		}

		@Override
		public Mono<Void> writeWith(Publisher<? extends DataBuffer> batches) {
			return BodyCancellation.cancelledWithWrite(batches, this::writeBatches);
		}

		private Mono<Void> writeBatches(Flux<? extends DataBuffer> batches) {
			OneBatchBody body = this.body;
			if (body == null) {
				return this.delegate.writeWith(batches);
			}
			// A first batch that the body emits on its own thread as a reset cancels the write
			// is held by switchOnFirst, which discards it: released by a discard hook. The
			// hook is kept from the body and its source, whose context stays the write's: with
			// a hook, Reactor discards what is left of a source it knows to be finite (a
			// collection, a sized stream) by iterating it on cancel, making every value not
			// yet made, where without one it only drops the iterator.
			return Mono.deferContextual((context) -> {
				AtomicBoolean cancelled = new AtomicBoolean();
				return Flux.<DataBuffer>from(batches)
					.contextWrite((withHook) -> Context.of(context))
					.switchOnFirst((first, all) -> {
						DataBuffer batch = first.get();
						Mono<Void> write;
						if (batch != null && body.isOneBatch()) {
							this.delegate.getHeaders().setContentLength(batch.readableByteCount());
							write = this.delegate.writeWith(all.singleOrEmpty());
						}
						else {
							write = this.delegate.writeWith(all);
						}
						// Cancelled as the first batch arrived, switchOnFirst fails the batches
						// it hands the transport with a CancellationException of its own, and
						// drops the write's failure that follows, which Reactor logs as an
						// error: that failure is only the cancellation, and no one waits for it.
						// A CancellationException of a write not cancelled is its failure.
						return write.onErrorComplete((ex) -> ex instanceof CancellationException && cancelled.get());
					})
					// after switchOnFirst: the flag is set before the cancel reaches it, and
					// so before its CancellationException can
					.doOnCancel(() -> cancelled.set(true))
					.doOnDiscard(DataBuffer.class, DataBufferUtils::release)
					.then();
			});
		}

		@Override
		public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
			return BodyCancellation.cancelledWithWrite(body,
					(parts) -> FlushedParts.writeAndFlush(this.delegate, parts));
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.delegate.getHeaders();
		}

		@Override
		public DataBufferFactory bufferFactory() {
			return this.delegate.bufferFactory();
		}

		@Override
		public void beforeCommit(Supplier<? extends Mono<Void>> action) {
			this.delegate.beforeCommit(action);
		}

		@Override
		public boolean isCommitted() {
			return this.delegate.isCommitted();
		}

		@Override
		public Mono<Void> setComplete() {
			return this.delegate.setComplete();
		}

	}

}
