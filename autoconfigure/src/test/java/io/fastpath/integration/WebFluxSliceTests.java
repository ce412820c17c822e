package io.fastpath.integration;

import io.fastpath.codec.DecoratingServerCodecConfigurer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webflux.test.autoconfigure.WebFluxTest;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @WebFluxTest} slice sees Fastpath as production does.
 */
@WebFluxTest(FastpathTestApplication.EchoController.class)
class WebFluxSliceTests {

	@Autowired
	private ServerCodecConfigurer serverCodecConfigurer;

	@Autowired
	private WebTestClient webTestClient;

	@Test
	void sliceServerCodecsAreDecorated() {
		assertThat(this.serverCodecConfigurer).isInstanceOf(DecoratingServerCodecConfigurer.class);
	}

	@Test
	void sliceControllerReadsBodies() {
		this.webTestClient.post()
			.uri("/echo/string")
			.contentType(MediaType.TEXT_PLAIN)
			.bodyValue("slice")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(String.class)
			.isEqualTo("slice");
	}

}
