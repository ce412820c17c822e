package io.fastpath.autoconfigure;

import java.util.List;
import java.util.function.Supplier;

import io.fastpath.codec.DecoratingServerCodecConfigurer;
import io.fastpath.codec.HttpMessageReaderDecorator;
import io.fastpath.codec.HttpMessageWriterDecorator;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.http.codec.ServerCodecConfigurer;

/**
 * Wraps the application's {@link ServerCodecConfigurer} in a
 * {@link DecoratingServerCodecConfigurer}. A post-processor rather than a
 * {@code CodecCustomizer}: a customizer can only add readers, which would shadow decoders
 * the application configured itself and change which reader wins for a type, while the
 * decorated configurer replaces stock readers in place, with their configuration.
 *
 * @author Fastpath
 */
public class ServerCodecConfigurerDecoratingPostProcessor implements BeanPostProcessor {

	private final ObjectProvider<HttpMessageReaderDecorator> decorators;

	private final Supplier<List<HttpMessageWriterDecorator>> writerDecorators;

	/**
	 * Create a post-processor that applies the given reader decorators, in their order.
	 * @param decorators the decorators, resolved when the configurer is created
	 */
	public ServerCodecConfigurerDecoratingPostProcessor(ObjectProvider<HttpMessageReaderDecorator> decorators) {
		this.decorators = decorators;
		this.writerDecorators = List::of;
	}

	/**
	 * Create a post-processor that applies the given reader and writer decorators, in
	 * their order.
	 * @param readerDecorators the reader decorators, resolved when the configurer is
	 * created
	 * @param writerDecorators the writer decorators, likewise
	 */
	public ServerCodecConfigurerDecoratingPostProcessor(ObjectProvider<HttpMessageReaderDecorator> readerDecorators,
			ObjectProvider<HttpMessageWriterDecorator> writerDecorators) {
		this.decorators = readerDecorators;
		this.writerDecorators = () -> writerDecorators.orderedStream().toList();
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof ServerCodecConfigurer configurer && !(bean instanceof DecoratingServerCodecConfigurer)) {
			List<HttpMessageReaderDecorator> readerDecorators = this.decorators.orderedStream().toList();
			List<HttpMessageWriterDecorator> writerDecorators = this.writerDecorators.get();
			if (!readerDecorators.isEmpty() || !writerDecorators.isEmpty()) {
				return new DecoratingServerCodecConfigurer(configurer, readerDecorators, writerDecorators);
			}
		}
		return bean;
	}

}
