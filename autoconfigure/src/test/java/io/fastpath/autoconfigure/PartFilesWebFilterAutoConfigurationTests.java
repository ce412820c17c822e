package io.fastpath.autoconfigure;

import io.fastpath.multipart.PartFilesWebFilter;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the filter that deletes the files of multipart parts at the end of a request is
 * registered: with Fastpath's multipart readers, in a reactive web application, unless
 * the application has its own.
 */
class PartFilesWebFilterAutoConfigurationTests {

	private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(FastpathAutoConfiguration.class,
				FastpathWebFluxAutoConfiguration.class, JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
				WebFluxAutoConfiguration.class));

	@Test
	void isRegisteredWithFastpathsMultipartReaders() {
		this.runner.run((context) -> assertThat(context).hasSingleBean(PartFilesWebFilter.class));
	}

	@Test
	void isNotRegisteredWhenMultipartIsLeftToStock() {
		this.runner.withPropertyValues("fastpath.form.multipart.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(PartFilesWebFilter.class));
	}

	@Test
	void isNotRegisteredWhenFormsAreLeftToStock() {
		this.runner.withPropertyValues("fastpath.form.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(PartFilesWebFilter.class));
	}

	@Test
	void isNotRegisteredWhenFastpathIsOff() {
		this.runner.withPropertyValues("fastpath.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(PartFilesWebFilter.class));
	}

	@Test
	void backsOffOnTheApplicationsOwn() {
		this.runner.withUserConfiguration(OwnFilter.class)
			.run((context) -> assertThat(context).getBean(PartFilesWebFilter.class)
				.isSameAs(context.getBean(OwnFilter.class).filter));
	}

	@Test
	void isNotRegisteredInAServletApplication() {
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(FastpathAutoConfiguration.class,
					FastpathWebFluxAutoConfiguration.class))
			.run((context) -> assertThat(context).doesNotHaveBean(PartFilesWebFilter.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnFilter {

		final PartFilesWebFilter filter = new PartFilesWebFilter();

		@Bean
		PartFilesWebFilter ownPartFilesWebFilter() {
			return this.filter;
		}

	}

}
