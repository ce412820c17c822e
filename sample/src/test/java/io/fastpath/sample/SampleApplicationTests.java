package io.fastpath.sample;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample answers through Fastpath; {@link SampleOnStockSpringTests} checks it answers
 * the same on stock Spring.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureWebTestClient
class SampleApplicationTests {

	private static final String ORDER = """
			{"id":"o-1","customer":"Ada","lines":[
			  {"sku":"tea","quantity":2,"unitPrice":3.50},
			  {"sku":"cake","quantity":1,"unitPrice":4.25}]}
			""";

	@Autowired
	private WebTestClient client;

	@Autowired
	private ApplicationContext context;

	@Test
	void answersOrdersThroughFastpath() {
		assertThat(this.context.getBean(ServerCodecConfigurer.class).getClass().getName())
			.isEqualTo("io.fastpath.codec.DecoratingServerCodecConfigurer");
		answersOrders(this.client);
	}

	static void answersOrders(WebTestClient client) {
		client.post()
			.uri("/orders")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(ORDER)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.json("{\"orderId\":\"o-1\",\"lines\":2,\"total\":11.25}");
		client.post()
			.uri("/echo")
			.contentType(MediaType.TEXT_PLAIN)
			.bodyValue("hello")
			.exchange()
			.expectBody(String.class)
			.isEqualTo("hello");
	}

}
