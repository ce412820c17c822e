package io.fastpath.form;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.core.ResolvableType;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.mock.http.client.reactive.MockClientHttpResponse;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ContentTooLargeException;

import io.fastpath.codec.ReadEvent;
import io.fastpath.test.LeakTrackingDataBufferFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that {@link LazyFormHttpMessageReader} tells its listener which way each form
 * went: read by Fastpath on the server, left to stock in client responses, refused with
 * the reason its error names.
 */
class LazyFormHttpMessageReaderReadEventsTests {

	private static final ResolvableType FORM_TYPE = ResolvableType.forClassWithGenerics(MultiValueMap.class,
			String.class, String.class);

	private final LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();

	private final FormHttpMessageReader stock = new FormHttpMessageReader();

	private final List<ReadEvent> events = new CopyOnWriteArrayList<>();

	private final LazyFormHttpMessageReader reader = new LazyFormHttpMessageReader(this.stock, 3, this.events::add);

	@AfterEach
	void noLeaks() {
		this.factory.assertNoLeaks();
	}

	@Test
	void serverRequestIsReadByFastpath() {
		StepVerifier.create(this.reader.readMono(FORM_TYPE, request(List.of("a=1&", "b=2"), -1), Map.of()))
			.assertNext((form) -> assertThat(form.toSingleValueMap()).isEqualTo(Map.of("a", "1", "b", "2")))
			.verifyComplete();
		assertThat(this.events).containsExactly(ReadEvent.FORM_REQUEST);
	}

	@Test
	void listenerIsToldWhenTheBodyIsReadNotWhenItIsAssembled() {
		Mono<MultiValueMap<String, String>> read = this.reader.readMono(FORM_TYPE, request(List.of("a=1"), -1),
				Map.of());
		MockClientHttpResponse response = new MockClientHttpResponse(HttpStatus.OK);
		response.getHeaders().setContentType(MediaType.APPLICATION_FORM_URLENCODED);
		response.setBody(Flux.just(this.factory.bufferOf("a=1".getBytes())));
		Mono<MultiValueMap<String, String>> readResponse = this.reader.readMono(FORM_TYPE, response, Map.of());
		assertThat(this.events).isEmpty();
		read.block();
		readResponse.block();
		assertThat(this.events).containsExactly(ReadEvent.FORM_REQUEST, ReadEvent.FORM_CLIENT_RESPONSE);
	}

	@Test
	void clientResponseIsLeftToStock() {
		MockClientHttpResponse response = new MockClientHttpResponse(HttpStatus.OK);
		response.getHeaders().setContentType(MediaType.APPLICATION_FORM_URLENCODED);
		response.setBody(Flux.just(this.factory.bufferOf("a=1".getBytes())));
		assertThat(this.reader.readMono(FORM_TYPE, response, Map.of()).block()).containsEntry("a", List.of("1"));
		assertThat(this.events).containsExactly(ReadEvent.FORM_CLIENT_RESPONSE);
		assertThat(this.events.get(0).getReason()).isEqualTo("client-response");
	}

	@Test
	void formWithTooManyFieldsIsRejectedAsTooManyFields() {
		StepVerifier.create(this.reader.readMono(FORM_TYPE, request(List.of("a=1&b=2&c=3&d=4"), -1), Map.of()))
			.expectError(TooManyFormFieldsException.class)
			.verify();
		assertThat(this.events).containsExactly(ReadEvent.FORM_REQUEST, ReadEvent.FORM_TOO_MANY_FIELDS);
	}

	@Test
	void formWithAMalformedEscapeIsRejectedAsMalformed() {
		StepVerifier.create(this.reader.readMono(FORM_TYPE, request(List.of("a=%G1"), -1), Map.of()))
			.expectError(MalformedFormDataException.class)
			.verify();
		assertThat(this.events).containsExactly(ReadEvent.FORM_REQUEST, ReadEvent.FORM_MALFORMED);
	}

	@Test
	void formAnnouncedOverTheLimitIsRejectedAsTooLarge() {
		this.stock.setMaxInMemorySize(8);
		StepVerifier.create(this.reader.readMono(FORM_TYPE, request(List.of("a=123456789"), 11), Map.of()))
			.expectError(ContentTooLargeException.class)
			.verify();
		assertThat(this.events).containsExactly(ReadEvent.FORM_REQUEST, ReadEvent.FORM_TOO_LARGE);
	}

	@Test
	void formGrowingOverTheLimitIsRejectedAsTooLarge() {
		this.stock.setMaxInMemorySize(8);
		StepVerifier.create(this.reader.readMono(FORM_TYPE, request(List.of("a=1234", "56789"), -1), Map.of()))
			.expectError(ContentTooLargeException.class)
			.verify();
		assertThat(this.events).containsExactly(ReadEvent.FORM_REQUEST, ReadEvent.FORM_TOO_LARGE);
	}

	@Test
	void failingUpstreamIsNoRejection() {
		MockServerHttpRequest request = MockServerHttpRequest.post("/")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.body(Flux.error(new IllegalStateException("connection reset")));
		StepVerifier.create(this.reader.readMono(FORM_TYPE, request, Map.of()))
			.expectError(IllegalStateException.class)
			.verify();
		assertThat(this.events).containsExactly(ReadEvent.FORM_REQUEST);
	}

	@Test
	void decoratorPassesItsListenerToTheReadersItCreates() {
		LazyFormDecoding decoding = new LazyFormDecoding(3, this.events::add);
		LazyFormHttpMessageReader decorated = (LazyFormHttpMessageReader) decoding.decorate(List.of(this.stock)).get(0);
		decorated.readMono(FORM_TYPE, request(List.of("a=1"), -1), Map.of()).block();
		assertThat(this.events).containsExactly(ReadEvent.FORM_REQUEST);
	}

	private MockServerHttpRequest request(List<String> chunks, long contentLength) {
		MockServerHttpRequest.BodyBuilder builder = MockServerHttpRequest.post("/")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED);
		if (contentLength >= 0) {
			builder.contentLength(contentLength);
		}
		return builder.body(Flux.fromIterable(chunks)
			.map((chunk) -> this.factory.bufferOf(chunk.getBytes(StandardCharsets.UTF_8))));
	}

}
