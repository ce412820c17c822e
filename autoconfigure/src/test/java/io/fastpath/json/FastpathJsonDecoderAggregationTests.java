package io.fastpath.json;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.fastpath.buffer.WholeBodyAggregation;
import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.MediaType;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JSON decoder's whole-body path as the features assemble it by default: the buffer
 * feature's aggregating reader around the JSON feature's decoder. A body in several heap
 * buffers reaches the decoder unjoined, and is streamed to the parser from its buffers (it
 * allocates less than a join: docs/benchmarks.md), while the aggregating reader still
 * refuses an announced length over the limit before the body is read.
 */
class FastpathJsonDecoderAggregationTests {

	private static final ResolvableType LINES = ResolvableType.forClassWithGenerics(List.class, Line.class);

	private final LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();

	private final List<ReadEvent> events = new CopyOnWriteArrayList<>();

	@AfterEach
	void everyBufferIsReleased() {
		this.factory.assertNoLeaks();
	}

	@Test
	void bodyInSeveralHeapBuffersIsReadWithoutJoiningThem() {
		List<String> chunks = List.of("[{\"sku\":\"a\",\"quan", "tity\":1},{\"sku\":", "\"b\",\"quantity\":2}]");
		StepVerifier.create(reader(-1).readMono(LINES, request(chunks, -1), Map.of()))
			.expectNext(List.of(new Line("a", 1), new Line("b", 2)))
			.verifyComplete();
		assertThat(this.factory.requestedCapacities()).as("buffers allocated beyond the body's own")
			.hasSize(chunks.size());
		assertThat(this.events).containsExactly(ReadEvent.BUFFER_WHOLE_BODY, ReadEvent.JSON_VALUE);
	}

	@Test
	void announcedLengthOverTheLimitIsRefusedBeforeTheBodyIsRead() {
		StepVerifier.create(reader(8).readMono(LINES, request(List.of("[]"), 9), Map.of()))
			.expectError(DataBufferLimitException.class)
			.verify();
		assertThat(this.factory.requestedCapacities()).isEmpty();
		assertThat(this.events).containsExactly(ReadEvent.BUFFER_WHOLE_BODY, ReadEvent.BUFFER_TOO_LARGE);
	}

	@Test
	void bodyGrowingOverTheLimitIsRefused() {
		StepVerifier.create(reader(8).readMono(LINES, request(List.of("[ ", "  ", "   ", "  ]"), -1), Map.of()))
			.expectError(DataBufferLimitException.class)
			.verify();
	}

	@SuppressWarnings("unchecked")
	private HttpMessageReader<Object> reader(int maxInMemorySize) {
		JacksonJsonDecoder stock = new JacksonJsonDecoder(JsonMapper.builder().build());
		stock.setMaxInMemorySize(maxInMemorySize);
		ReadListener listener = this.events::add;
		List<HttpMessageReader<?>> readers = new WholeBodyAggregation(listener)
			.decorate(new JsonArrayDecoding(false, listener).decorate(List.of(new DecoderHttpMessageReader<>(stock))));
		return (HttpMessageReader<Object>) readers.get(0);
	}

	private MockServerHttpRequest request(List<String> chunks, long contentLength) {
		MockServerHttpRequest.BodyBuilder builder = MockServerHttpRequest.post("/")
			.contentType(MediaType.APPLICATION_JSON);
		if (contentLength >= 0) {
			builder.contentLength(contentLength);
		}
		return builder.body(Flux.fromIterable(chunks)
			.map((chunk) -> this.factory.bufferOf(chunk.getBytes(StandardCharsets.UTF_8))));
	}

	record Line(String sku, int quantity) {
	}

}
