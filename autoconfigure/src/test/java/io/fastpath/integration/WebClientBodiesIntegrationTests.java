package io.fastpath.integration;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import io.fastpath.integration.FastpathTestApplication.Person;
import io.fastpath.integration.FastpathTestApplication.WriteController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every non-stream {@code WebClient} body on real HTTP, read by a client from Boot's
 * {@code WebClient.Builder} (Fastpath) and by a stock client on the same connector and the
 * same responses: small
 * (a few hundred bytes) and large (about 200 KB) bodies, with a Content-Length and
 * chunked. Results must be identical, the Fastpath path must have been taken, and Netty's
 * paranoid leak detector must report nothing (see NettyLeakDetectionExtension). Run on
 * every connector by {@link WebClientConnectorsIntegrationTests}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.http.codecs.max-in-memory-size=1MB")
abstract class WebClientBodiesIntegrationTests extends RealServerTests {

	private static final ParameterizedTypeReference<List<Person>> PEOPLE = new ParameterizedTypeReference<>() {
	};

	@LocalServerPort
	private int port;

	/** The connector the enclosing class names: reactor, jdk or jetty. */
	@Value("${spring.http.clients.reactive.connector}")
	private String connectorName;

	/** Boot's connector, which its {@code WebClient.Builder} uses. */
	@Autowired
	private ClientHttpConnector connector;

	static Stream<Arguments> bodies() {
		return Stream.of(Arguments.of("small", 6, 300, false), Arguments.of("small", 6, 300, true),
				Arguments.of("large", 4500, 200_000, false), Arguments.of("large", 4500, 200_000, true));
	}

	private WebClient stock() {
		return WebClient.builder()
			.clientConnector(this.connector)
			.baseUrl("http://localhost:" + this.port)
			.codecs((codecs) -> codecs.defaultCodecs().maxInMemorySize(1024 * 1024))
			.build();
	}

	@Test
	void clientRunsOnTheConnectorItIsNamedFor() {
		assertThat(this.connector.getClass().getSimpleName())
			.isEqualToIgnoringCase(this.connectorName + "ClientHttpConnector");
	}

	@ParameterizedTest(name = "{0} body, chunked={3}")
	@MethodSource("bodies")
	void bodyToMonoStringIsReadAsStockReadsIt(String size, int people, int textSize, boolean chunked) {
		String uri = "/client/text?size=" + textSize + "&chunked=" + chunked;
		Function<WebClient, Mono<String>> call = (client) -> client.get().uri(uri).retrieve().bodyToMono(String.class);
		String fastpath = call.apply(this.client).block();
		assertThat(fastpath).hasSizeGreaterThanOrEqualTo(textSize).isEqualTo(call.apply(stock()).block());
		assertThat(this.recorder.reads()).containsExactly("client:StringDecoder");
	}

	@ParameterizedTest(name = "{0} body, chunked={3}")
	@MethodSource("bodies")
	void bodyToMonoBytesIsReadAsStockReadsIt(String size, int people, int textSize, boolean chunked) {
		String uri = "/client/text?size=" + textSize + "&chunked=" + chunked;
		Function<WebClient, Mono<byte[]>> call = (client) -> client.get().uri(uri).retrieve().bodyToMono(byte[].class);
		assertThat(call.apply(this.client).block()).isEqualTo(call.apply(stock()).block());
		assertThat(this.recorder.reads()).containsExactly("client:ByteArrayDecoder");
	}

	@ParameterizedTest(name = "{0} body, chunked={3}")
	@MethodSource("bodies")
	void bodyToMonoListIsReadAsStockReadsIt(String size, int people, int textSize, boolean chunked) {
		String uri = "/client/people?count=" + people + "&chunked=" + chunked;
		Function<WebClient, Mono<List<Person>>> call = (client) -> client.get().uri(uri).retrieve().bodyToMono(PEOPLE);
		List<Person> fastpath = call.apply(this.client).block();
		assertThat(fastpath).hasSize(people).isEqualTo(call.apply(stock()).block());
		assertThat(this.recorder.reads()).containsExactly("client:FastpathJsonDecoder");
	}

	@ParameterizedTest(name = "{0} body, chunked={3}")
	@MethodSource("bodies")
	void toEntityIsReadAsStockReadsIt(String size, int people, int textSize, boolean chunked) {
		String uri = "/client/text?size=" + textSize + "&chunked=" + chunked;
		Function<WebClient, Mono<ResponseEntity<String>>> call = (client) -> client.get()
			.uri(uri)
			.retrieve()
			.toEntity(String.class);
		ResponseEntity<String> fastpath = call.apply(this.client).block();
		ResponseEntity<String> stock = call.apply(stock()).block();
		assertThat(fastpath.getStatusCode()).isEqualTo(stock.getStatusCode());
		assertThat(fastpath.getHeaders().getContentType()).isEqualTo(stock.getHeaders().getContentType());
		assertThat(fastpath.getHeaders().getContentLength()).isEqualTo(stock.getHeaders().getContentLength());
		assertThat(fastpath.getBody()).isEqualTo(stock.getBody());
	}

	@ParameterizedTest(name = "{0} body, chunked={3}")
	@MethodSource("bodies")
	void toEntityListIsReadAsStockReadsIt(String size, int people, int textSize, boolean chunked) {
		String uri = "/client/people?count=" + people + "&chunked=" + chunked;
		Function<WebClient, Mono<ResponseEntity<List<Person>>>> call = (client) -> client.get()
			.uri(uri)
			.retrieve()
			.toEntityList(Person.class);
		ResponseEntity<List<Person>> fastpath = call.apply(this.client).block();
		ResponseEntity<List<Person>> stock = call.apply(stock()).block();
		assertThat(fastpath.getStatusCode()).isEqualTo(stock.getStatusCode());
		assertThat(fastpath.getBody()).hasSize(people).isEqualTo(stock.getBody());
	}

	@ParameterizedTest(name = "{0} body, chunked={3}")
	@MethodSource("bodies")
	void bodyToFluxIsReadAsStockReadsIt(String size, int people, int textSize, boolean chunked) {
		String uri = "/client/people?count=" + people + "&chunked=" + chunked;
		Function<WebClient, Mono<List<Person>>> call = (client) -> client.get()
			.uri(uri)
			.retrieve()
			.bodyToFlux(Person.class)
			.collectList();
		assertThat(call.apply(this.client).block()).hasSize(people).isEqualTo(call.apply(stock()).block());
	}

	@ParameterizedTest(name = "{0} body, chunked={3}")
	@MethodSource("bodies")
	void errorBodiesOfRetrieveAreReadAsStockReadsThem(String size, int people, int textSize, boolean chunked) {
		for (int status : new int[] { 404, 500 }) {
			String uri = "/client/error?status=" + status + "&count=" + people + "&chunked=" + chunked;
			Function<WebClient, Mono<String>> call = (client) -> client.get()
				.uri(uri)
				.retrieve()
				.bodyToMono(String.class);
			WebClientResponseException fastpath = failureOf(call.apply(this.client));
			WebClientResponseException stock = failureOf(call.apply(stock()));
			assertThat(fastpath.getStatusCode()).isEqualTo(stock.getStatusCode());
			assertThat(fastpath.getStatusCode().value()).isEqualTo(status);
			assertThat(fastpath.getResponseBodyAsString()).contains("\"error\":\"failed\"")
				.isEqualTo(stock.getResponseBodyAsString());
		}
		assertThat(this.recorder.reads()).contains("client:ByteArrayDecoder");
	}

	@ParameterizedTest(name = "{0} people")
	@ValueSource(ints = { 0, 3, 5000 })
	void aFluxRequestBodyIsReadAsSentAndChunkedAsStockChunksIt(int count) {
		String answer = this.client.post()
			.uri("/json/people/framing")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Flux.range(0, count).map(WriteController::person), Person.class)
			.retrieve()
			.bodyToMono(String.class)
			.block(Duration.ofSeconds(10));
		// A response of one batch gets a length; a request body does not (the JDK's and
		// Jetty's connectors subscribe to it after the write returns), one batch or several.
		assertThat(answer).isEqualTo(count + " chunked");
	}

	private static WebClientResponseException failureOf(Mono<?> call) {
		try {
			call.block();
		}
		catch (WebClientResponseException ex) {
			return ex;
		}
		throw new AssertionError("Expected the call to fail");
	}

}
