package io.fastpath.json;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.util.Assert;

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

	/** Marks the end of the body, after its last buffer: holds nothing. */
	static final InFlightBuffer END = new InFlightBuffer();

	private final @Nullable DataBuffer buffer;

	private boolean released;

	InFlightBuffer(DataBuffer buffer) {
		this.buffer = buffer;
	}

	private InFlightBuffer() {
		this.buffer = null;
		this.released = true;
	}

	/**
	 * Hand the buffer over to a consumer that releases it.
	 * @return the buffer, no longer released by {@link #release()}
	 */
	DataBuffer handOver() {
		Assert.state(this.buffer != null, "The end holds no buffer");
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
