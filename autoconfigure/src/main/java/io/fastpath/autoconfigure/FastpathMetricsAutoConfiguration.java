package io.fastpath.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of Fastpath's meters ({@code fastpath.reads},
 * {@code fastpath.rejections}, {@code fastpath.writes}, ...): a {@link FastpathMetrics}
 * bean, which Spring Boot binds to the meter registry as every {@code MeterBinder}, which
 * Fastpath's readers tell of each decision as a {@code ReadListener}, and its writers of
 * each body written in batches as a {@code WriteListener}.
 *
 * @author Fastpath
 */
@AutoConfiguration(afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "fastpath.enabled", matchIfMissing = true)
public final class FastpathMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	FastpathMetrics fastpathMetrics() {
		return new FastpathMetrics();
	}

}
