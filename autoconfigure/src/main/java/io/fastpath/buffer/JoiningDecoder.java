package io.fastpath.buffer;

import org.springframework.core.codec.Decoder;

/**
 * A {@link Decoder} whose {@code decodeToMono} joins the body within
 * {@link #getMaxInMemorySize()} and then decodes it, passing a {@code Mono} of one buffer
 * through its join untouched, as {@code DataBufferUtils#join} does. The readers of such a
 * decoder are among those {@link WholeBodyAggregation} replaces: the body is then
 * aggregated before the decoder sees it, limited from the message's
 * {@code Content-Length}. Implement it on a decoder of your own whose whole-body path is
 * "join, then decode" to have its bodies aggregated too (Fastpath's JSON decoder does).
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

}
