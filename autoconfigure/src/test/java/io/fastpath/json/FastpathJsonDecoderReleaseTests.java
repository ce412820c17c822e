package io.fastpath.json;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.NoDroppedErrorsExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.PooledDataBuffer;
import org.springframework.http.MediaType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every buffer the decoder receives is released exactly once, on error, limit and cancel,
 * also with another {@code DataBuffer} discard hook downstream (as WebFlux registers when
 * it writes the response): a second release would take the reference that Reactor Netty
 * releases itself, and pooled memory would be reused while still read (found by the
 * sample's leak soak). The transport's own reference is modelled with a retain, and the
 * heap factory counts references, so a second release shows.
 */
@ExtendWith(NoDroppedErrorsExtension.class)
class FastpathJsonDecoderReleaseTests {

	private final LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();

	private final List<DataBuffer> received = new CopyOnWriteArrayList<>();

	@Test
	void chunkWithMalformedSeparatorIsReleasedOnce() {
		List<DataBuffer> chunks = transportBuffers(new String[] { "[{\"a\":1}", " {\"a\":2}]", ",3]" });
		StepVerifier.create(new FastpathJsonDecoder(JsonMapper.builder().build()).decode(received(chunks),
				ResolvableType.forClass(Object.class), MediaType.APPLICATION_JSON, null))
			.expectNextCount(1)
			.expectError(DecodingException.class)
			.verify();
		assertTransportReferencesLeft(chunks);
	}

	@Test
	void chunkWithMalformedElementIsReleasedOnce() {
		// The element is complete for the splitter and fails in the parser
		List<DataBuffer> chunks = transportBuffers(new String[] { "[{\"a\":1},{x}]" });
		StepVerifier.create(new FastpathJsonDecoder(JsonMapper.builder().build()).decode(received(chunks),
				ResolvableType.forClass(Object.class), MediaType.APPLICATION_JSON, null))
			.expectError(DecodingException.class)
			.verify();
		assertTransportReferencesLeft(chunks);
	}

	/**
	 * As on a WebFlux server writing the answer with {@code EncoderHttpMessageWriter}: a
	 * {@code DataBuffer} discard hook of its own downstream, which sees what this decoder's
	 * operators drop. Each buffer must still be released once by the decoder.
	 */
	@Test
	void buffersDroppedOnErrorAreReleasedOnceWithAnotherDiscardHookDownstream() {
		FastpathJsonDecoder decoder = new FastpathJsonDecoder(JsonMapper.builder().build());
		for (String[] body : List.of(new String[] { "[{\"a\":1},", "{x}]", "[3]" }, new String[] { "[1,", "2]x", "[" })) {
			List<DataBuffer> flux = transportBuffers(body);
			StepVerifier.create(decoder.decode(received(flux), ResolvableType.forClass(Object.class),
					MediaType.APPLICATION_JSON, null).doOnDiscard(DataBuffer.class, DataBufferUtils::release))
				.thenConsumeWhile((value) -> true)
				.expectError(DecodingException.class)
				.verify();
			assertTransportReferencesLeft(flux);
		}
	}

	@Test
	void buffersGatheredForAWholeValueAreReleasedOnceWithAnotherDiscardHookDownstream() {
		FastpathJsonDecoder decoder = new FastpathJsonDecoder(JsonMapper.builder().build());
		decoder.setMaxInMemorySize(8);
		List<DataBuffer> overLimit = transportBuffers(new String[] { "[1,2,", "3,4,", "5,6]" });
		StepVerifier.create(decoder.decodeToMono(received(overLimit), ResolvableType.forClass(long[].class),
				MediaType.APPLICATION_JSON, null).doOnDiscard(DataBuffer.class, DataBufferUtils::release))
			.expectError(DataBufferLimitException.class)
			.verify();
		assertTransportReferencesLeft(overLimit);
		decoder.setMaxInMemorySize(1024);
		List<DataBuffer> cancelled = transportBuffers(new String[] { "[1,2,", "3,4," });
		StepVerifier.create(decoder.decodeToMono(Flux.concat(received(cancelled), Flux.never()),
				ResolvableType.forClass(long[].class), MediaType.APPLICATION_JSON, null)
			.doOnDiscard(DataBuffer.class, DataBufferUtils::release))
			.expectSubscription()
			.thenCancel()
			.verify();
		assertTransportReferencesLeft(cancelled);
	}

	/**
	 * Buffers with a reference of the transport's own, as Reactor Netty holds until
	 * {@code onNext} returns: the other one is the decoder's, once it receives the buffer.
	 */
	private List<DataBuffer> transportBuffers(String[] chunks) {
		return Stream.of(chunks)
			.map((chunk) -> this.factory.bufferOf(chunk.getBytes(StandardCharsets.UTF_8)))
			.peek((buffer) -> ((PooledDataBuffer) buffer).retain())
			.toList();
	}

	/** The buffers, as a body that records which of them the decoder asked for. */
	private Flux<DataBuffer> received(List<DataBuffer> buffers) {
		return Flux.<DataBuffer, Integer>generate(() -> 0, (index, sink) -> {
			if (index < buffers.size()) {
				sink.next(buffers.get(index));
			}
			else {
				sink.complete();
			}
			return index + 1;
		}).doOnNext(this.received::add);
	}

	/**
	 * Check that the decoder released its reference to every buffer it received, once: the
	 * transport's are left, and releasing them (and both references of buffers the
	 * decoder never asked for) leaves nothing allocated.
	 */
	private void assertTransportReferencesLeft(List<DataBuffer> buffers) {
		assertThat(buffers).as("the transport's references are left to it")
			.allMatch((buffer) -> ((PooledDataBuffer) buffer).isAllocated());
		buffers.forEach(DataBufferUtils::release);
		buffers.stream().filter((buffer) -> !this.received.contains(buffer)).forEach(DataBufferUtils::release);
		this.factory.assertNoLeaks();
		this.received.clear();
	}

}
