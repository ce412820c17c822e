package io.fastpath.buffer;

import java.util.List;
import java.util.Map;

import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.NoDroppedErrorsExtension;
import io.fastpath.test.TransportBuffers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.publisher.TestPublisher;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.codec.StringDecoder;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every buffer the aggregator receives is released exactly once, by it or by whoever it
 * hands the body to, on success, error, limit and cancel, also with another
 * {@code DataBuffer} discard hook downstream (as WebFlux registers when it writes the
 * response). The transport's own reference is modelled (see {@link TransportBuffers}), so
 * a second release shows as a reference of the transport's taken.
 */
@ExtendWith(NoDroppedErrorsExtension.class)
class DataBufferAggregatorReleaseTests {

	private final LeakTrackingDataBufferFactory.Heap factory = (LeakTrackingDataBufferFactory.Heap) LeakTrackingDataBufferFactory
		.heap();

	@Test
	void joinedBodyLeavesTheTransportItsReferences() {
		TransportBuffers body = TransportBuffers.of(this.factory, "foo", "bar", "baz");
		StepVerifier.create(DataBufferAggregator.aggregate(body.flux(), 100, -1))
			.assertNext((joined) -> assertThat(release(joined)).isEqualTo("foobarbaz"))
			.verifyComplete();
		body.assertReleasedOnceByReader();
	}

	@Test
	void bodyOfOneBufferIsHandedOnWithTheAggregatorsReference() {
		TransportBuffers body = TransportBuffers.of(this.factory, "only");
		StepVerifier.create(DataBufferAggregator.aggregate(body.flux(), 100, 4))
			.assertNext((joined) -> assertThat(release(joined)).isEqualTo("only"))
			.verifyComplete();
		body.assertReleasedOnceByReader();
	}

	@Test
	void bodyOverTheLimitIsReleasedOnceWithAnotherDiscardHookDownstream() {
		TransportBuffers body = TransportBuffers.of(this.factory, "123", "456", "789", "never read");
		StepVerifier.create(DataBufferAggregator.aggregate(body.flux(), 8, -1)
			.doOnDiscard(DataBuffer.class, DataBufferUtils::release))
			.expectError(DataBufferLimitException.class)
			.verify();
		body.assertReleasedOnceByReader();
	}

	@Test
	void responseAnnouncedOverTheLimitIsReleasedOnceWhenItsFirstByteArrives() {
		TransportBuffers body = TransportBuffers.of(this.factory, "12", "never read");
		StepVerifier.create(DataBufferAggregator.aggregateResponseBody(body.flux(), 8, 100, () -> {
		})
			.doOnDiscard(DataBuffer.class, DataBufferUtils::release))
			.expectError(DataBufferLimitException.class)
			.verify();
		body.assertReleasedOnceByReader();
	}

	@Test
	void bodyFailingMidwayIsReleasedOnceWithAnotherDiscardHookDownstream() {
		TransportBuffers body = TransportBuffers.of(this.factory, "foo", "bar");
		StepVerifier.create(DataBufferAggregator
			.aggregate(Flux.concat(body.flux(), Flux.error(new IllegalStateException("connection reset"))), 100, -1)
			.doOnDiscard(DataBuffer.class, DataBufferUtils::release))
			.expectErrorMessage("connection reset")
			.verify();
		body.assertReleasedOnceByReader();
	}

	@Test
	void bodyCancelledMidwayIsReleasedOnceWithAnotherDiscardHookDownstream() {
		TransportBuffers body = TransportBuffers.of(this.factory, "foo", "bar");
		StepVerifier.create(DataBufferAggregator.aggregate(Flux.concat(body.flux(), Flux.never()), 100, -1)
			.doOnDiscard(DataBuffer.class, DataBufferUtils::release))
			.expectSubscription()
			.thenCancel()
			.verify();
		body.assertReleasedOnceByReader();
	}

	@Test
	void bodyCancelledAfterItEndedButBeforeItWasRequestedIsReleasedOnce() {
		TransportBuffers body = TransportBuffers.of(this.factory, "foo", "bar");
		TestPublisher<DataBuffer> source = TestPublisher.create();
		BaseSubscriber<DataBuffer> requestsNothing = new BaseSubscriber<>() {

			@Override
			protected void hookOnSubscribe(Subscription subscription) {
			}

		};
		DataBufferAggregator.aggregate(source, 100, -1)
			.doOnDiscard(DataBuffer.class, DataBufferUtils::release)
			.subscribe(requestsNothing);
		body.flux().subscribe(source::next, source::error, source::complete);
		requestsNothing.dispose();
		body.assertReleasedOnceByReader();
	}

	/** Through the reader: the decoder releases the joined body, once, also when it fails. */
	@Test
	void readerReleasesOnceWhenTheDecoderFails() {
		AggregatingHttpMessageReader<Object> reader = new AggregatingHttpMessageReader<>(
				new DecoderHttpMessageReader<>(new JacksonJsonDecoder(JsonMapper.builder().build())));
		for (String[] chunks : List.of(new String[] { "{\"a\":", "x}" }, new String[] { "{\"a\":1}" })) {
			TransportBuffers body = TransportBuffers.of(this.factory, chunks);
			MockServerHttpRequest request = MockServerHttpRequest.post("/")
				.contentType(MediaType.APPLICATION_JSON)
				.body(body.flux());
			Mono<Object> read = reader.readMono(ResolvableType.forClass(Map.class), request, Map.of());
			if (chunks.length == 1) {
				StepVerifier.create(read).expectNext(Map.of("a", 1)).verifyComplete();
			}
			else {
				StepVerifier.create(read.doOnDiscard(DataBuffer.class, DataBufferUtils::release))
					.expectError(DecodingException.class)
					.verify();
			}
			body.assertReleasedOnceByReader();
		}
	}

	@Test
	void readerReleasesOnceOnTheLimit() {
		StringDecoder decoder = StringDecoder.allMimeTypes();
		decoder.setMaxInMemorySize(5);
		AggregatingHttpMessageReader<String> reader = new AggregatingHttpMessageReader<>(
				new DecoderHttpMessageReader<>(decoder));
		TransportBuffers body = TransportBuffers.of(this.factory, "abc", "def", "never read");
		MockServerHttpRequest request = MockServerHttpRequest.post("/")
			.contentType(MediaType.TEXT_PLAIN)
			.body(body.flux());
		StepVerifier.create(reader.readMono(ResolvableType.forClass(String.class), request, Map.of())
			.doOnDiscard(DataBuffer.class, DataBufferUtils::release))
			.expectError(DataBufferLimitException.class)
			.verify();
		body.assertReleasedOnceByReader();
	}

	private static String release(DataBuffer buffer) {
		String content = buffer.toString(java.nio.charset.StandardCharsets.UTF_8);
		DataBufferUtils.release(buffer);
		return content;
	}

}
