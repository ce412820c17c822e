package io.fastpath.integration;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webclient.test.autoconfigure.WebClientTest;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.mock.http.client.reactive.MockClientHttpResponse;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @WebClientTest} slice ({@code @AutoConfigureWebClient}) sees Fastpath as
 * production does: a {@code WebClient} built from the slice's {@code WebClient.Builder}
 * reads whole bodies with Fastpath's readers. Shown by reading bodies (from a connector
 * that answers without a network) and recording which Fastpath readers were asked, not
 * by the beans present: a builder left stock, or customized with strategies that lost
 * the decoration, fails here.
 */
@WebClientTest
class WebClientSliceTests {

	private static final ParameterizedTypeReference<List<Long>> LONGS = new ParameterizedTypeReference<>() {
	};

	@Autowired
	private WebClient.Builder builder;

	@Autowired
	private ReadMonoRecorder recorder;

	@BeforeEach
	void clearRecorder() {
		this.recorder.clear();
	}

	@Test
	void sliceWebClientReadsWholeBodiesWithFastpathsReaders() {
		WebClient client = this.builder.clientConnector(connector()).build();
		assertThat(client.get().uri("http://localhost/text").retrieve().bodyToMono(String.class).block())
			.isEqualTo("body");
		assertThat(client.get().uri("http://localhost/json").retrieve().bodyToMono(LONGS).block())
			.containsExactly(1L, 2L);
		assertThat(this.recorder.reads()).containsExactly("client:StringDecoder", "client:FastpathJsonDecoder");
	}

	/** The recorder sees Fastpath's readers only: a stock client leaves it empty. */
	@Test
	void stockWebClientIsNotRecorded() {
		WebClient client = WebClient.builder().clientConnector(connector()).build();
		assertThat(client.get().uri("http://localhost/text").retrieve().bodyToMono(String.class).block())
			.isEqualTo("body");
		assertThat(this.recorder.reads()).isEmpty();
	}

	/** Answers {@code /json} with a JSON array, anything else with text. */
	private static ClientHttpConnector connector() {
		return (method, uri, requestCallback) -> {
			boolean json = uri.getPath().equals("/json");
			MockClientHttpResponse response = new MockClientHttpResponse(HttpStatus.OK);
			response.getHeaders().setContentType(json ? MediaType.APPLICATION_JSON : MediaType.TEXT_PLAIN);
			byte[] body = (json ? "[1,2]" : "body").getBytes(StandardCharsets.UTF_8);
			response.setBody(Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body)));
			return Mono.just(response);
		};
	}

}
