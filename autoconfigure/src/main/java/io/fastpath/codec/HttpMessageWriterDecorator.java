package io.fastpath.codec;

import java.util.List;

import org.springframework.http.codec.HttpMessageWriter;

/**
 * Rewrites the final list of writers that a codec configurer hands out, after every
 * customization has been applied: the twin of {@link HttpMessageReaderDecorator}, so
 * that Fastpath features take the place of stock writers in their exact position and
 * with the exact configuration the application gave them.
 * <p>Implementations must be idempotent: applied to a list they already decorated, they
 * return it unchanged.
 *
 * @author Fastpath
 * @see DecoratingServerCodecConfigurer
 * @see DecoratingExchangeStrategies
 */
@FunctionalInterface
public interface HttpMessageWriterDecorator {

	/**
	 * Return the writers to use instead of the given ones.
	 * @param writers the writers, in the order the codec configurer built them
	 * @return the writers to use, in the order to consult them
	 */
	List<HttpMessageWriter<?>> decorate(List<HttpMessageWriter<?>> writers);

	/**
	 * Apply the given decorators in order.
	 * @param writers the writers to decorate
	 * @param decorators the decorators, in order
	 * @return the decorated writers
	 */
	static List<HttpMessageWriter<?>> decorateAll(List<HttpMessageWriter<?>> writers,
			List<? extends HttpMessageWriterDecorator> decorators) {
		List<HttpMessageWriter<?>> result = writers;
		for (HttpMessageWriterDecorator decorator : decorators) {
			result = decorator.decorate(result);
		}
		return result;
	}

}
