package io.fastpath.autoconfigure;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import io.fastpath.form.FormArgumentsWebFluxConfigurer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableReactiveWebApplicationContext;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code fastpath.enabled=false} leaves only the beans the README names: the form
 * controller arguments (controllers are written against them) and the {@code fastpath}
 * endpoint with the properties it shows. Every Fastpath auto-configuration the starter
 * registers is loaded, from the same imports file Boot reads, so a new one that forgets the
 * switch fails here.
 *
 * @author Fastpath
 */
class FastpathDisabledTests {

	private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(fastpathAutoConfigurations()))
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
				WebFluxAutoConfiguration.class, WebClientAutoConfiguration.class, MetricsAutoConfiguration.class,
				SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
		.withPropertyValues("management.endpoints.web.exposure.include=fastpath");

	private static Class<?>[] fastpathAutoConfigurations() {
		List<Class<?>> classes = ImportCandidates.load(AutoConfiguration.class, FastpathDisabledTests.class.getClassLoader())
			.getCandidates()
			.stream()
			.filter((name) -> name.startsWith("io.fastpath."))
			.distinct()
			.<Class<?>>map(FastpathDisabledTests::load)
			.toList();
		assertThat(classes).as("Fastpath's auto-configurations on the class path").hasSizeGreaterThanOrEqualTo(7);
		return classes.toArray(Class<?>[]::new);
	}

	private static Class<?> load(String name) {
		try {
			return Class.forName(name);
		}
		catch (ClassNotFoundException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Test
	void disabledLeavesOnlyTheFormArgumentsAndTheEndpoint() {
		this.contextRunner.withPropertyValues("fastpath.enabled=false")
			.run((context) -> assertThat(fastpathBeans(context)).containsExactly(FastpathEndpoint.class.getName(),
					FastpathProperties.class.getName(), FormArgumentsWebFluxConfigurer.class.getName()));
	}

	@Test
	void enabledHasMoreThanThat() {
		// The check above must see Fastpath's beans when they are there.
		this.contextRunner.run((context) -> assertThat(fastpathBeans(context)).contains(
				FastpathStartupLogger.class.getName(), FastpathWebClientCustomizer.class.getName(),
				FastpathMetrics.class.getName()));
	}

	/** The classes of the Fastpath beans, but the auto-configuration classes themselves. */
	private static Set<String> fastpathBeans(AssertableReactiveWebApplicationContext context) {
		Set<String> types = new TreeSet<>();
		Arrays.stream(context.getBeanDefinitionNames()).forEach((name) -> {
			Class<?> type = context.getType(name);
			if (type != null && type.getName().startsWith("io.fastpath.")
					&& !type.isAnnotationPresent(AutoConfiguration.class) && !type.getName().contains("$")) {
				types.add(type.getName());
			}
		});
		return types;
	}

}
