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
 * With {@code fastpath.enabled=false} the sample runs on stock Spring and answers the same.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "fastpath.enabled=false")
@AutoConfigureWebTestClient
class SampleOnStockSpringTests {

	@Autowired
	private WebTestClient client;

	@Autowired
	private ApplicationContext context;

	@Test
	void answersEveryReadmeCurlLineTheSameOnStockSpring() {
		assertThat(this.context.getBean(ServerCodecConfigurer.class).getClass().getName())
			.doesNotStartWith("io.fastpath");
		ReadmeCurlLines.check(this.client);
	}

}
