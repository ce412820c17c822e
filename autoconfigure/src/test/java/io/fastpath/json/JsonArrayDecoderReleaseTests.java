package io.fastpath.json;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import io.fastpath.test.LeakTrackingDataBufferFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.test.StepVerifier;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.PooledDataBuffer;
import org.springframework.http.MediaType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A chunk that the streaming path fails on is released exactly once: by Reactor, which
 * discards the element its mapper failed on, and not also by the decoder (a double release
 * that Netty reports, and Reactor drops with an error log, on a real server). The heap
 * factory counts references, so a second release shows.
 */
class JsonArrayDecoderReleaseTests {

	private final LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();

	private final List<Throwable> dropped = new CopyOnWriteArrayList<>();

	@BeforeEach
	void recordDroppedErrors() {
		Hooks.onErrorDropped(this.dropped::add);
	}

	@AfterEach
	void resetHooks() {
		Hooks.resetOnErrorDropped();
	}

	@Test
	void chunkWithMalformedSeparatorIsReleasedOnce() {
		// As on Reactor Netty, the transport holds a reference of its own to each buffer.
		List<DataBuffer> chunks = Stream.of("[{\"a\":1}", " {\"a\":2}]", ",3]")
			.map((chunk) -> this.factory.bufferOf(chunk.getBytes(StandardCharsets.UTF_8)))
			.peek((buffer) -> ((PooledDataBuffer) buffer).retain())
			.toList();
		StepVerifier.create(new JsonArrayDecoder(JsonMapper.builder().build()).decode(Flux.fromIterable(chunks).hide(),
				ResolvableType.forClass(Object.class), MediaType.APPLICATION_JSON, null))
			.expectNextCount(1)
			.expectError(DecodingException.class)
			.verify();
		assertThat(chunks).as("the transport's references are left to it")
			.allMatch((buffer) -> ((PooledDataBuffer) buffer).isAllocated());
		chunks.forEach(DataBufferUtils::release);
		this.factory.assertNoLeaks();
		assertThat(this.dropped).isEmpty();
	}

}
