package io.fastpath.sample;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.ApplicationContext;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample answers every curl line of the README through Fastpath;
 * {@link SampleOnStockSpringTests} checks it answers the same on stock Spring.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureWebTestClient
class SampleApplicationTests {

	@Autowired
	private WebTestClient client;

	@Autowired
	private ApplicationContext context;

	@Test
	void answersEveryReadmeCurlLineThroughFastpath() {
		assertThat(this.context.getBean(ServerCodecConfigurer.class).getClass().getName())
			.isEqualTo("io.fastpath.codec.DecoratingServerCodecConfigurer");
		ReadmeCurlLines.check(this.client);
	}

}
