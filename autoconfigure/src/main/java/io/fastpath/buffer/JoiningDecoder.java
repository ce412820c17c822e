package io.fastpath.buffer;

import org.springframework.core.codec.Decoder;

/**
 * A {@link Decoder} whose {@code decodeToMono} joins the body within
 * {@link #getMaxInMemorySize()} and then decodes it, passing a {@code Mono} of one buffer
 * through its join untouched, as {@code DataBufferUtils#join} does. Such a decoder can be
 * decorated by {@link AggregatingHttpMessageReader}, which aggregates the body itself
 * with the message's {@code Content-Length}.
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
