package io.fastpath.buffer;

import org.springframework.core.codec.Decoder;

/**
 * A {@link Decoder} whose {@code decodeToMono} joins the body within
 * {@link #getMaxInMemorySize()} and then decodes it, passing a {@code Mono} of one buffer
 * through its join untouched, as {@code DataBufferUtils#join} does. The readers of such a
 * decoder are among those {@link WholeBodyAggregation} replaces: the body is then
 * aggregated before the decoder sees it, limited from the message's
 * {@code Content-Length}. Implement it on a decoder of your own whose whole-body path is
 * "join, then decode" to have its bodies aggregated too. A decoder that reads a body's
 * buffers better than their join (Fastpath's JSON decoder, which streams heap buffers to
 * its parser) says so with {@link #gathersParts()}: its readers then only refuse a
 * request's {@code Content-Length} over the limit, before the body is read, and hand the
 * body over unjoined.
 *
 * @param <T> the type of decoded values
 * @author Fastpath
 */
public interface JoiningDecoder<T> extends Decoder<T> {

	/**
	 * Return the most bytes the decoder buffers for one body.
	 * @return the limit, or -1 for none
	 */
	int getMaxInMemorySize();

	/**
	 * Return whether {@code decodeToMono} reads a body that arrives in several buffers from
	 * those buffers, within {@link #getMaxInMemorySize()}, better than from their join.
	 * @return whether the body is to be handed over unjoined; {@code false} by default
	 */
	default boolean gathersParts() {
		return false;
	}

}
