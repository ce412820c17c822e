package io.fastpath.autoconfigure;

import io.fastpath.buffer.WholeBodyAggregation;
import io.fastpath.codec.HttpMessageReaderDecorator;
import io.fastpath.codec.ReadListener;
import io.fastpath.codec.WriteListener;
import io.fastpath.form.LazyFormDecoding;
import io.fastpath.json.JsonArrayDecoding;
import io.fastpath.json.write.JsonBatchEncoding;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.http.codec.CodecConfigurer;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.http.codec.json.JacksonJsonEncoder;
import org.springframework.util.Assert;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Auto-configuration of Fastpath's features: one
 * {@link HttpMessageReaderDecorator} (or, for writing,
 * {@link io.fastpath.codec.HttpMessageWriterDecorator}) bean per enabled feature.
 * {@link FastpathWebFluxAutoConfiguration} and {@link FastpathWebClientAutoConfiguration}
 * apply them to the server's codecs and to the auto-configured {@code WebClient.Builder}.
 *
 * @author Fastpath
 */
@AutoConfiguration(after = CodecsAutoConfiguration.class,
		beforeName = { "org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration",
				"org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration" })
@ConditionalOnClass({ CodecConfigurer.class, WebClient.class })
@ConditionalOnBooleanProperty(name = "fastpath.enabled", matchIfMissing = true)
@EnableConfigurationProperties(FastpathProperties.class)
public final class FastpathAutoConfiguration {

	/**
	 * Order of the JSON feature among reader decorators: it replaces the stock Jackson
	 * reader before the buffer feature wraps whole-body readers.
	 */
	public static final int JSON_ORDER = -10;

	/** Order of the buffer feature among reader decorators. */
	public static final int BUFFER_ORDER = 0;

	/** Order of the form feature among reader decorators: it replaces its own reader only. */
	public static final int FORM_ORDER = 10;

	@Bean
	@ConditionalOnMissingBean
	FastpathStartupLogger fastpathStartupLogger(ListableBeanFactory beanFactory) {
		return new FastpathStartupLogger(beanFactory);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty(name = "fastpath.buffer.enabled", matchIfMissing = true)
	static class BufferConfiguration {

		@Bean
		@Order(BUFFER_ORDER)
		@ConditionalOnMissingBean
		WholeBodyAggregation fastpathWholeBodyAggregation(ObjectProvider<ReadListener> listeners) {
			return new WholeBodyAggregation(ReadListeners.of(listeners));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ JsonMapper.class, JacksonJsonDecoder.class })
	@ConditionalOnBooleanProperty(name = "fastpath.json.enabled", matchIfMissing = true)
	@ConditionalOnProperty(name = "spring.http.codecs.preferred-json-mapper", havingValue = "jackson",
			matchIfMissing = true)
	static class JsonConfiguration {

		@Bean
		@Order(JSON_ORDER)
		@ConditionalOnMissingBean
		JsonArrayDecoding fastpathJsonArrayDecoding(FastpathProperties properties,
				ObjectProvider<ReadListener> listeners) {
			return new JsonArrayDecoding(properties.getJson().isOptimizeCreators(), ReadListeners.of(listeners));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ JsonMapper.class, JacksonJsonEncoder.class })
	@ConditionalOnBooleanProperty(name = "fastpath.json.write.enabled", matchIfMissing = true)
	@ConditionalOnProperty(name = "spring.http.codecs.preferred-json-mapper", havingValue = "jackson",
			matchIfMissing = true)
	static class JsonWriteConfiguration {

		/** Far above any useful batch: a batch is held whole before it is written. */
		private static final long MAX_BATCH_SIZE = 16 * 1024 * 1024;

		@Bean
		@ConditionalOnMissingBean
		JsonBatchEncoding fastpathJsonBatchEncoding(FastpathProperties properties,
				ObjectProvider<WriteListener> listeners) {
			long batchSize = properties.getJson().getWrite().getBatchSize().toBytes();
			Assert.isTrue(batchSize > 0 && batchSize <= MAX_BATCH_SIZE,
					() -> "fastpath.json.write.batch-size must be between 1B and 16MB, was " + batchSize + "B");
			return new JsonBatchEncoding((int) batchSize, properties.getJson().isOptimizeCreators(),
					WriteListeners.of(listeners));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBooleanProperty(name = "fastpath.form.enabled", matchIfMissing = true)
	static class FormConfiguration {

		@Bean
		@Order(FORM_ORDER)
		@ConditionalOnMissingBean
		LazyFormDecoding fastpathLazyFormDecoding(FastpathProperties properties,
				ObjectProvider<ReadListener> listeners) {
			FastpathProperties.Form form = properties.getForm();
			return new LazyFormDecoding(form.getMaxParameters(), form.getMultipart().isEnabled(),
					ReadListeners.of(listeners));
		}

	}

}
