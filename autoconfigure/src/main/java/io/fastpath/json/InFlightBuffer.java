package io.fastpath.json;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;

/**
 * A body buffer inside this decoder's operators, under a type of its own. Reactor hands
 * what an operator drops (queued on cancel, failed in a mapper, left in a collection) to
 * every discard hook in the subscriber's context whose type matches, and WebFlux registers
 * {@code DataBuffer} hooks of its own downstream of the request body: writing a response
 * with {@code EncoderHttpMessageWriter}, for one. A request buffer dropped as a
 * {@code DataBuffer} would be released once per hook, taking the reference that Reactor
 * Netty releases itself after {@code onNext}, and the pooled memory would be reused while
 * still read. Only this decoder's hook handles this type, and it releases once.
 *
 * @author Fastpath
 */
final class InFlightBuffer {

	private final DataBuffer buffer;

	private boolean released;

	InFlightBuffer(DataBuffer buffer) {
		this.buffer = buffer;
	}

	/**
	 * Hand the buffer over to a consumer that releases it.
	 * @return the buffer, no longer released by {@link #release()}
	 */
	DataBuffer handOver() {
		this.released = true;
		return this.buffer;
	}

	/** Release the buffer, unless it was released or handed over already. */
	void release() {
		if (!this.released) {
			this.released = true;
			DataBufferUtils.release(this.buffer);
		}
	}

}
