package io.fastpath.integration;

import io.fastpath.autoconfigure.FastpathWebClientCustomizer;
import io.fastpath.buffer.WholeBodyAggregation;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webclient.test.autoconfigure.WebClientTest;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @WebClientTest} slice ({@code @AutoConfigureWebClient}) sees Fastpath as
 * production does.
 */
@WebClientTest
class WebClientSliceTests {

	@Autowired
	private ApplicationContext context;

	@Test
	void sliceWebClientBuilderIsCustomizedByFastpath() {
		assertThat(this.context.getBeansOfType(WholeBodyAggregation.class)).hasSize(1);
		assertThat(this.context.getBeansOfType(FastpathWebClientCustomizer.class)).hasSize(1);
	}

}
