package io.fastpath.json.write;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

import io.fastpath.codec.WriteListener;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;
import reactor.test.publisher.TestPublisher;

import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.json.JacksonJsonEncoder;
import org.springframework.mock.http.client.reactive.MockClientHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the batching writer gives a {@code Flux} body a {@code Content-Length}: only a JSON
 * array that went out whole in its first batch, with the stock writer's bytes; never a
 * body of several batches, a streaming type or a body that failed; and a first batch is
 * never held back to learn whether it is the last; and a reset releases every batch.
 */
class BatchingJsonWriterTests {

	private static final ResolvableType INTEGER = ResolvableType.forClass(Integer.class);


	private final LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();

	private final JacksonJsonEncoder stock = new JacksonJsonEncoder();

	@Test
	void aJsonArrayThatFitsInOneBatchGoesOutAsOneBufferWithItsLength() {
		WrittenBody expected = write(new EncoderHttpMessageWriter<>(this.stock), Flux.range(0, 10),
				MediaType.APPLICATION_JSON);
		WrittenBody actual = write(writer(1024), Flux.range(0, 10), MediaType.APPLICATION_JSON);
		assertThat(actual.bytes()).isEqualTo(expected.bytes()).asString(StandardCharsets.UTF_8)
			.isEqualTo("[0,1,2,3,4,5,6,7,8,9]");
		assertThat(actual.buffers()).isOne();
		assertThat(actual.contentLength()).isEqualTo(expected.bytes().length);
		assertThat(expected.contentLength()).as("stock gives a Flux no length").isEqualTo(-1);
		this.factory.assertNoLeaks();
	}

	@Test
	void anEmptyFluxIsAnEmptyArrayWithItsLength() {
		WrittenBody actual = write(writer(1024), Flux.empty(), MediaType.APPLICATION_JSON);
		assertThat(actual.bytes()).asString(StandardCharsets.UTF_8).isEqualTo("[]");
		assertThat(actual.contentLength()).isEqualTo(2);
		this.factory.assertNoLeaks();
	}

	@Test
	void aBodyOfSeveralBatchesHasNoLength() {
		WrittenBody actual = write(writer(8), Flux.range(0, 100), MediaType.APPLICATION_JSON);
		assertThat(actual.buffers()).isGreaterThan(1);
		assertThat(actual.contentLength()).isEqualTo(-1);
		this.factory.assertNoLeaks();
	}

	@Test
	void aStreamingMediaTypeHasNoLength() {
		WrittenBody actual = write(writer(1024), Flux.range(0, 3), MediaType.APPLICATION_NDJSON);
		assertThat(actual.bytes()).asString(StandardCharsets.UTF_8).isEqualTo("0\n1\n2\n");
		assertThat(actual.contentLength()).isEqualTo(-1);
		this.factory.assertNoLeaks();
	}

	@Test
	void aBodyThatFailsAfterItsValuesHasNoLength() {
		IllegalStateException boom = new IllegalStateException("boom");
		WrittenBody actual = write(writer(1024), Flux.range(0, 3).concatWith(Mono.error(boom)),
				MediaType.APPLICATION_JSON);
		assertThat(actual.bytes()).asString(StandardCharsets.UTF_8).isEqualTo("[0,1,2");
		assertThat(actual.error()).isSameAs(boom);
		assertThat(actual.contentLength()).isEqualTo(-1);
		this.factory.assertNoLeaks();
	}

	@Test
	void aSourceThatFailsFirstWritesNothingAndHasNoLength() {
		IllegalStateException boom = new IllegalStateException("boom");
		WrittenBody actual = write(writer(1024), Flux.error(boom), MediaType.APPLICATION_JSON);
		assertThat(actual.bytes()).isEmpty();
		assertThat(actual.error()).isSameAs(boom);
		assertThat(actual.contentLength()).isEqualTo(-1);
		this.factory.assertNoLeaks();
	}

	@Test
	void aFirstBatchIsWrittenWhileTheSourceIsStillOpen() {
		Sinks.Many<Integer> source = Sinks.many().unicast().onBackpressureBuffer();
		MockServerHttpResponse response = new MockServerHttpResponse(this.factory);
		writer(1024).write(source.asFlux(), INTEGER, MediaType.APPLICATION_JSON, response, Map.of()).subscribe();
		source.tryEmitNext(1);
		StringBuilder rest = new StringBuilder();
		StepVerifier.create(response.getBody())
			.assertNext((buffer) -> assertThat(text(buffer)).isEqualTo("[1"))
			.then(() -> {
				assertThat(response.getHeaders().getContentLength()).isEqualTo(-1);
				source.tryEmitNext(2);
				source.tryEmitComplete();
			})
			.thenConsumeWhile((buffer) -> rest.append(text(buffer)) != null)
			.expectComplete()
			.verify(Duration.ofSeconds(5));
		assertThat(rest).hasToString(",2]");
		this.factory.assertNoLeaks();
	}

	@Test
	void aBodyWrittenInsideAPacedWriteIsPacedByItsOwnTransportAlone() {
		// A WebClient body written from a response's source, to a message that keeps every
		// buffer until the body ends (as a decorator that logs or signs a body does): paced
		// by releases, as the response around it is, it would wait for ever after two caps
		LeakTrackingDataBufferFactory netty = LeakTrackingDataBufferFactory.nettyPooled();
		MockClientHttpRequest request = new MockClientHttpRequest(HttpMethod.POST, "/") {

			@Override
			public DataBufferFactory bufferFactory() {
				return netty;
			}

		};
		writer(1000).write(Flux.range(0, 20_000), INTEGER, MediaType.APPLICATION_JSON, request, Map.of())
			.contextWrite(SendPacing::paced)
			.block(Duration.ofSeconds(10));
		String body = DataBufferUtils.join(request.getBody()).map(BatchingJsonWriterTests::text)
			.block(Duration.ofSeconds(10));
		assertThat(body).startsWith("[0,1,2,").endsWith(",19998,19999]");
		netty.assertNoLeaks();
	}

	/**
	 * A response reset early while its source, a finite stream that makes each value as it
	 * is asked (as {@code fromStream(ids.stream().map(this::load))} does), has most of its
	 * values to make: they are never made. Reactor discards what is left of a source it
	 * knows to be finite by iterating it, when a discard hook is in the source's context;
	 * the writer's own hook, for the batch it holds, must not reach the source.
	 */
	@Test
	void aResetResponseLeavesTheRestOfItsFiniteSourceUnmade() {
		AtomicInteger made = new AtomicInteger();
		Flux<Integer> source = Flux.fromStream(IntStream.range(0, 1_000_000).boxed().map((value) -> {
			made.incrementAndGet();
			return value;
		}));
		AtomicReference<@Nullable Throwable> writeError = new AtomicReference<>();
		writer(1024).write(source, INTEGER, MediaType.APPLICATION_JSON, new ResettingResponse(this.factory), Map.of())
			.subscribe(null, writeError::set);
		assertThat(writeError.get()).hasMessage("Simulated: connection reset");
		// a batch of about 1 KB and the values queued behind it: a few hundred
		assertThat(made).as("values made").hasValueLessThan(10_000);
		this.factory.assertNoLeaks();
	}

	/**
	 * A response reset after its first batch, while the body's own thread (a source handed
	 * over by {@code publishOn}) had the next batch on its way: that batch arrives after the
	 * cancel and goes on to the transport, which releases it. A writer that cuts the body
	 * off where the write ends ({@code takeUntilOther}) drops it unreleased.
	 */
	@Test
	void aBatchTheBodyEmitsAsTheTransportResetsIsReleased() {
		// a body that goes on emitting after it was cancelled, as one on its own thread does
		TestPublisher<DataBuffer> body = TestPublisher.createNoncompliant(TestPublisher.Violation.DEFER_CANCELLATION);
		AtomicReference<@Nullable Throwable> writeError = new AtomicReference<>();
		new BatchingJsonWriter.BatchedMessage(new ResettingResponse(this.factory), new OneBatchBody()).writeWith(body)
			.subscribe(null, writeError::set);
		body.next(this.factory.bufferOf("[1".getBytes(StandardCharsets.UTF_8)));
		assertThat(body.wasCancelled()).as("the body cancelled by the reset").isTrue();
		assertThat(writeError.get()).hasMessage("Simulated: connection reset");
		body.next(this.factory.bufferOf(",2".getBytes(StandardCharsets.UTF_8)));
		this.factory.assertNoLeaks();
	}

	/**
	 * A response reset as its first batch arrives from the body's own thread: the reset
	 * cancels the write while the writer holds that batch, before the transport took it.
	 */
	@Test
	void aFirstBatchHeldWhenTheResponseIsResetIsReleasedAndNoErrorIsDropped() {
		TestPublisher<DataBuffer> body = TestPublisher.createNoncompliant(TestPublisher.Violation.DEFER_CANCELLATION);
		AtomicReference<@Nullable Disposable> write = new AtomicReference<>();
		MockServerHttpResponse response = new MockServerHttpResponse(this.factory);
		ServerHttpResponseDecorator resetAsTheWriteBegins = new ServerHttpResponseDecorator(response) {

			@Override
			public Mono<Void> writeWith(Publisher<? extends DataBuffer> batches) {
				Disposable reset = write.get();
				if (reset != null) {
					reset.dispose();
				}
				return super.writeWith(batches);
			}

		};
		List<Throwable> dropped = new CopyOnWriteArrayList<>();
		Hooks.onErrorDropped(dropped::add);
		try {
			write.set(new BatchingJsonWriter.BatchedMessage(resetAsTheWriteBegins, new OneBatchBody()).writeWith(body)
				.subscribe());
			body.next(this.factory.bufferOf("[1".getBytes(StandardCharsets.UTF_8)));
			// Spring's send operator then subscribes to what switchOnFirst has cancelled, and
			// fails with its CancellationException, which switchOnFirst would drop
			assertThat(dropped).as("errors dropped").isEmpty();
		}
		finally {
			Hooks.resetOnErrorDropped();
		}
		this.factory.assertNoLeaks();
	}

	/**
	 * A write the transport fails with a {@code CancellationException} of its own, not
	 * cancelled: its failure is the write's, not completed as the one that only follows a
	 * cancellation.
	 */
	@Test
	void aWriteTheTransportFailsWithACancellationFailsWhenNotCancelled() {
		MockServerHttpResponse response = new MockServerHttpResponse(this.factory);
		ServerHttpResponseDecorator failing = new ServerHttpResponseDecorator(response) {

			@Override
			public Mono<Void> writeWith(Publisher<? extends DataBuffer> batches) {
				// taken as a transport takes them: the writer's discard hook would release
				// what then() discards, a second time
				return Flux.from(batches)
					.map(DataBufferUtils::release)
					.then(Mono.error(new CancellationException("the transport's own")));
			}

		};
		StepVerifier.create(new BatchingJsonWriter.BatchedMessage(failing, new OneBatchBody())
			.writeWith(Flux.just(this.factory.bufferOf("[1]".getBytes(StandardCharsets.UTF_8)))))
			.expectErrorSatisfies((error) -> assertThat(error).isInstanceOf(CancellationException.class)
				.hasMessage("the transport's own"))
			.verify(Duration.ofSeconds(5));
		this.factory.assertNoLeaks();
	}

	private BatchingJsonWriter writer(int cap) {
		return new BatchingJsonWriter(new BatchingJsonEncoder(this.stock, cap, null, WriteListener.NONE));
	}

	private WrittenBody write(EncoderHttpMessageWriter<?> writer, Flux<Integer> values, MediaType mediaType) {
		return WrittenBody.write(writer, values, INTEGER, mediaType, this.factory, Map.of());
	}

	/**
	 * A response whose transport releases the first buffer it takes and then resets: it
	 * cancels the body and ends the write.
	 */
	private static final class ResettingResponse extends MockServerHttpResponse {

		ResettingResponse(DataBufferFactory factory) {
			super(factory);
		}

		@Override
		protected Mono<Void> writeWithInternal(Publisher<? extends DataBuffer> body) {
			return Mono.create((sink) -> body.subscribe(new BaseSubscriber<DataBuffer>() {

				@Override
				protected void hookOnNext(DataBuffer buffer) {
					DataBufferUtils.release(buffer);
					cancel();
					sink.error(new IllegalStateException("Simulated: connection reset"));
				}

			}));
		}

	}

	private static String text(DataBuffer buffer) {
		String text = buffer.toString(StandardCharsets.UTF_8);
		DataBufferUtils.release(buffer);
		return text;
	}

}
