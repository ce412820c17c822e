package io.fastpath.test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import reactor.core.publisher.Flux;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A body of heap buffers that each carry a reference of the transport's own, as Reactor
 * Netty holds one until {@code onNext} returns and releases it itself: the other reference
 * is the reader's, once it receives the buffer. A reader that releases a buffer twice
 * takes the transport's reference (pooled memory would then be reused while still read);
 * {@link #assertReleasedOnceByReader()} shows it, and a release missed.
 */
public final class TransportBuffers {

	private final LeakTrackingDataBufferFactory.Heap factory;

	private final List<LeakTrackingDataBufferFactory.CountedBuffer> buffers;

	private final List<DataBuffer> received = new CopyOnWriteArrayList<>();

	private TransportBuffers(LeakTrackingDataBufferFactory.Heap factory, String[] chunks) {
		this.factory = factory;
		this.buffers = Stream.of(chunks)
			.map((chunk) -> (LeakTrackingDataBufferFactory.CountedBuffer) factory
				.bufferOf(chunk.getBytes(StandardCharsets.UTF_8)))
			.peek(LeakTrackingDataBufferFactory.CountedBuffer::retain)
			.toList();
	}

	/**
	 * The given chunks as buffers of the given factory, each with the transport's reference.
	 * @param factory the factory to take the buffers from
	 * @param chunks the body, chunk by chunk
	 * @return the body
	 */
	public static TransportBuffers of(LeakTrackingDataBufferFactory.Heap factory, String... chunks) {
		return new TransportBuffers(factory, chunks);
	}

	/**
	 * The body, recording which buffers the reader asked for.
	 * @return the buffers as a {@code Flux}
	 */
	public Flux<DataBuffer> flux() {
		// Emitted one by one as requested, as a transport does: not Flux.fromIterable, which
		// on cancel hands the buffers it did not emit to the discard hooks downstream.
		return Flux.<DataBuffer, Integer>generate(() -> 0, (index, sink) -> {
			if (index < this.buffers.size()) {
				sink.next(this.buffers.get(index));
			}
			else {
				sink.complete();
			}
			return index + 1;
		}).doOnNext(this.received::add);
	}

	/**
	 * Check that the reader released its reference to every buffer it received, once, and
	 * that what it made of them was released too: the transport's references are left,
	 * and releasing them (and both references of the buffers the reader never asked for)
	 * leaves nothing allocated and nothing released too often.
	 */
	public void assertReleasedOnceByReader() {
		assertThat(this.buffers).as("the transport's references left (and the reader's, if never received)")
			.allSatisfy((buffer) -> assertThat(buffer.referenceCount())
				.isEqualTo(this.received.contains(buffer) ? 1 : 2));
		this.buffers.forEach(DataBufferUtils::release);
		this.buffers.stream().filter((buffer) -> !this.received.contains(buffer)).forEach(DataBufferUtils::release);
		this.factory.assertNoLeaks();
	}

}
