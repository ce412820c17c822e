package io.fastpath.json.write;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import io.fastpath.codec.WriteListener;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.json.JacksonJsonEncoder;
import org.springframework.mock.http.client.reactive.MockClientHttpRequest;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the batching writer gives a {@code Flux} body a {@code Content-Length}: only a JSON
 * array that went out whole in its first batch, with the stock writer's bytes; never a
 * body of several batches, a streaming type or a body that failed; and a first batch is
 * never held back to learn whether it is the last.
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

	private BatchingJsonWriter writer(int cap) {
		return new BatchingJsonWriter(new BatchingJsonEncoder(this.stock, cap, null, WriteListener.NONE));
	}

	private WrittenBody write(EncoderHttpMessageWriter<?> writer, Flux<Integer> values, MediaType mediaType) {
		return WrittenBody.write(writer, values, INTEGER, mediaType, this.factory, Map.of());
	}

	private static String text(DataBuffer buffer) {
		String text = buffer.toString(StandardCharsets.UTF_8);
		DataBufferUtils.release(buffer);
		return text;
	}

}
