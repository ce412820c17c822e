package io.fastpath.autoconfigure;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.http.codec.CodecConfigurer;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Auto-configuration of the {@code fastpath} Actuator endpoint, available like every
 * endpoint once exposed ({@code management.endpoints.web.exposure.include=fastpath}). It
 * is there with {@code fastpath.enabled=false} too, and then says so.
 *
 * @author Fastpath
 */
@AutoConfiguration(after = { FastpathAutoConfiguration.class, FastpathMetricsAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class, CodecConfigurer.class, WebClient.class })
@ConditionalOnAvailableEndpoint(FastpathEndpoint.class)
@EnableConfigurationProperties(FastpathProperties.class)
public final class FastpathEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	FastpathEndpoint fastpathEndpoint(ListableBeanFactory beanFactory, FastpathProperties properties) {
		return new FastpathEndpoint(beanFactory, properties);
	}

}
