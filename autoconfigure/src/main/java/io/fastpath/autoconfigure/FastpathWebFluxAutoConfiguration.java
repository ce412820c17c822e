package io.fastpath.autoconfigure;

import io.fastpath.codec.HttpMessageReaderDecorator;
import io.fastpath.codec.HttpMessageWriterDecorator;
import io.fastpath.multipart.PartFilesWebFilter;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.config.WebFluxConfigurer;

/**
 * Auto-configuration that applies Fastpath's reader and writer decorators to the server codecs of a
 * reactive web application: the {@code ServerCodecConfigurer} bean, after Spring Boot's
 * {@code CodecCustomizer}s and the application's {@code WebFluxConfigurer}s have
 * configured it, hands out decorated readers and writers to controllers, functional endpoints and
 * {@code ServerWebExchange#getFormData()} alike; and a filter that deletes the files of a
 * request's multipart parts when its handling ends ({@link PartFilesWebFilter}).
 *
 * @author Fastpath
 */
@AutoConfiguration(after = FastpathAutoConfiguration.class,
		beforeName = "org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(WebFluxConfigurer.class)
@ConditionalOnBooleanProperty(name = "fastpath.enabled", matchIfMissing = true)
public final class FastpathWebFluxAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	static ServerCodecConfigurerDecoratingPostProcessor fastpathServerCodecConfigurerPostProcessor(
			ObjectProvider<HttpMessageReaderDecorator> decorators,
			ObjectProvider<HttpMessageWriterDecorator> writerDecorators) {
		return new ServerCodecConfigurerDecoratingPostProcessor(decorators, writerDecorators);
	}

	/**
	 * The owner of the files Fastpath's multipart readers spool parts to: deleted when a
	 * request's handling ends, however it ends and whichever way the parts were reached.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty(name = "fastpath.form.enabled", matchIfMissing = true)
	static class MultipartFilesConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBooleanProperty(name = "fastpath.form.multipart.enabled", matchIfMissing = true)
		PartFilesWebFilter fastpathPartFilesWebFilter() {
			return new PartFilesWebFilter();
		}

	}

}
