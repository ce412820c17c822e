package io.fastpath.buffer;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.fastpath.codec.ReadEvent;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.StringDecoder;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that the buffer feature tells its listener of every whole body it joins, and of
 * every body refused for its size exactly once, whether the {@code Content-Length} or the
 * body itself crossed the limit.
 */
class AggregatingHttpMessageReaderReadEventsTests {

	private static final ResolvableType STRING = ResolvableType.forClass(String.class);

	private final LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();

	private final List<ReadEvent> events = new CopyOnWriteArrayList<>();

	@AfterEach
	void everyBufferIsReleased() {
		this.factory.assertNoLeaks();
	}

	@Test
	void wholeBodyWithinTheLimitIsRecordedAsRead() {
		StepVerifier.create(reader(16).readMono(STRING, request(List.of("hello ", "world"), 11), Map.of()))
			.expectNext("hello world")
			.verifyComplete();
		assertThat(this.events).containsExactly(ReadEvent.BUFFER_WHOLE_BODY);
	}

	@Test
	void listenerIsToldWhenTheBodyIsReadNotWhenItIsAssembled() {
		Mono<String> read = reader(8).readMono(STRING, request(List.of("hello world"), 11), Map.of());
		assertThat(this.events).isEmpty();
		StepVerifier.create(read).expectError(DataBufferLimitException.class).verify();
		assertThat(this.events).containsExactly(ReadEvent.BUFFER_WHOLE_BODY, ReadEvent.BUFFER_TOO_LARGE);
	}

	@Test
	void bodyAnnouncedOverTheLimitIsRejectedOnce() {
		StepVerifier.create(reader(8).readMono(STRING, request(List.of("hello world"), 11), Map.of()))
			.expectError(DataBufferLimitException.class)
			.verify();
		assertThat(this.events).containsExactly(ReadEvent.BUFFER_WHOLE_BODY, ReadEvent.BUFFER_TOO_LARGE);
	}

	@Test
	void bodyGrowingOverTheLimitIsRejectedOnce() {
		StepVerifier.create(reader(8).readMono(STRING, request(List.of("hello ", "world", "!"), -1), Map.of()))
			.expectError(DataBufferLimitException.class)
			.verify();
		assertThat(this.events).containsExactly(ReadEvent.BUFFER_WHOLE_BODY, ReadEvent.BUFFER_TOO_LARGE);
	}

	@Test
	void decoratorPassesItsListenerToTheReadersItCreates() {
		DecoderHttpMessageReader<String> stock = new DecoderHttpMessageReader<>(StringDecoder.allMimeTypes());
		WholeBodyAggregation aggregation = new WholeBodyAggregation(this.events::add);
		assertThat(aggregation.decorate(List.of(stock)).get(0).readMono(STRING, request(List.of("a"), 1), Map.of())
			.block()).isEqualTo("a");
		assertThat(this.events).containsExactly(ReadEvent.BUFFER_WHOLE_BODY);
	}

	@Test
	void aggregatorRunsTheLimitCallbackOnlyForABodyOverTheLimit() {
		AtomicInteger overLimit = new AtomicInteger();
		StepVerifier.create(DataBufferAggregator.aggregate(buffers("12345", "678"), 8, -1, overLimit::incrementAndGet))
			.consumeNextWith(DataBufferUtils::release)
			.verifyComplete();
		assertThat(overLimit).hasValue(0);
		StepVerifier.create(DataBufferAggregator.aggregate(buffers("12345", "6789"), 8, -1, overLimit::incrementAndGet))
			.expectError(DataBufferLimitException.class)
			.verify();
		assertThat(overLimit).hasValue(1);
		StepVerifier.create(DataBufferAggregator.aggregate(Flux.never(), 8, 9, overLimit::incrementAndGet))
			.expectError(DataBufferLimitException.class)
			.verify();
		assertThat(overLimit).hasValue(2);
	}

	private AggregatingHttpMessageReader<String> reader(int maxInMemorySize) {
		StringDecoder decoder = StringDecoder.allMimeTypes();
		decoder.setMaxInMemorySize(maxInMemorySize);
		return new AggregatingHttpMessageReader<>(new DecoderHttpMessageReader<>(decoder), this.events::add);
	}

	private Flux<DataBuffer> buffers(String... chunks) {
		return Flux.fromArray(chunks).map((chunk) -> this.factory.bufferOf(chunk.getBytes(StandardCharsets.UTF_8)));
	}

	private MockServerHttpRequest request(List<String> chunks, long contentLength) {
		MockServerHttpRequest.BodyBuilder builder = MockServerHttpRequest.post("/").contentType(MediaType.TEXT_PLAIN);
		if (contentLength >= 0) {
			builder.contentLength(contentLength);
		}
		return builder.body(buffers(chunks.toArray(String[]::new)));
	}

}
