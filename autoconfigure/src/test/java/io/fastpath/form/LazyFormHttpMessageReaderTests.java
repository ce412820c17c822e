package io.fastpath.form;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.mock.http.client.reactive.MockClientHttpResponse;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ContentTooLargeException;

import io.fastpath.test.CapturedLogs;
import io.fastpath.test.LeakTrackingDataBufferFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link LazyFormHttpMessageReader}: settings, limits, and release of every
 * buffer on error and cancel.
 */
class LazyFormHttpMessageReaderTests {

	private static final ResolvableType FORM_TYPE = ResolvableType.forClassWithGenerics(MultiValueMap.class,
			String.class, String.class);

	private final LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();

	private final FormHttpMessageReader stock = new FormHttpMessageReader();

	private final LazyFormHttpMessageReader reader = new LazyFormHttpMessageReader(this.stock, 3);

	@AfterEach
	void noLeaks() {
		this.factory.assertNoLeaks();
	}

	@Test
	void readsServerRequestsIntoALazyMap() {
		MultiValueMap<String, String> form = this.reader.readMono(FORM_TYPE, request("a=1&b=%202", -1), Map.of())
			.block();
		assertThat(form).isInstanceOf(FormDataMap.class);
		assertThat(form.getFirst("b")).isEqualTo(" 2");
		assertThat(FormParameters.of(form).size()).isEqualTo(2);
	}

	@Test
	void readsOneMapAsAFlux() {
		StepVerifier.create(this.reader.read(FORM_TYPE, request("a=1", -1), Map.of()))
			.assertNext((form) -> assertThat(form.getFirst("a")).isEqualTo("1"))
			.verifyComplete();
	}

	@Test
	void leavesClientResponsesToTheStockReader() {
		MockClientHttpResponse response = new MockClientHttpResponse(HttpStatus.OK);
		response.getHeaders().setContentType(MediaType.APPLICATION_FORM_URLENCODED);
		response.setBody(Flux.just(this.factory.bufferOf("a=1".getBytes())));
		MultiValueMap<String, String> form = this.reader.readMono(FORM_TYPE, response, Map.of()).block();
		assertThat(form).isInstanceOf(LinkedMultiValueMap.class).containsEntry("a", List.of("1"));
	}

	@Test
	void readsAnEmptyBodyAsNothingLikeStock() {
		StepVerifier.create(this.reader.readMono(FORM_TYPE, request("", -1), Map.of())).verifyComplete();
		StepVerifier.create(this.stock.readMono(FORM_TYPE, request("", -1), Map.of())).verifyComplete();
	}

	@Test
	void readsTypesAndMediaTypesLikeStock() {
		assertThat(this.reader.getReadableMediaTypes()).isEqualTo(this.stock.getReadableMediaTypes());
		assertThat(this.reader.canRead(FORM_TYPE, MediaType.APPLICATION_FORM_URLENCODED)).isTrue();
		assertThat(this.reader.canRead(FORM_TYPE, null)).isTrue();
		assertThat(this.reader.canRead(FORM_TYPE, MediaType.APPLICATION_JSON)).isFalse();
		assertThat(this.reader.canRead(ResolvableType.forClass(String.class), MediaType.APPLICATION_FORM_URLENCODED))
			.isFalse();
		assertThat(this.reader.getStockReader()).isSameAs(this.stock);
		assertThat(this.reader.getMaxFields()).isEqualTo(3);
	}

	@Test
	void followsTheStockReadersDefaultCharsetSetAfterwards() {
		this.stock.setDefaultCharset(StandardCharsets.ISO_8859_1);
		MockServerHttpRequest request = MockServerHttpRequest.post("/")
			.header("Content-Type", "application/x-www-form-urlencoded")
			.body(Flux.just(this.factory.bufferOf("a=%E9".getBytes(StandardCharsets.US_ASCII))));
		assertThat(this.reader.readMono(FORM_TYPE, request, Map.of()).block().getFirst("a")).isEqualTo("é");
	}

	@Test
	void usesTheCharsetOfTheContentType() {
		MockServerHttpRequest request = MockServerHttpRequest.post("/")
			.contentType(new MediaType(MediaType.APPLICATION_FORM_URLENCODED, StandardCharsets.ISO_8859_1))
			.body(Flux.just(this.factory.bufferOf("a=\u00e9".getBytes(StandardCharsets.ISO_8859_1))));
		assertThat(this.reader.readMono(FORM_TYPE, request, Map.of()).block().getFirst("a")).isEqualTo("é");
	}

	@Test
	void rejectsABodyAnnouncedTooLargeWithoutReadingIt() {
		this.stock.setMaxInMemorySize(8);
		AtomicBoolean subscribed = new AtomicBoolean();
		MockServerHttpRequest request = MockServerHttpRequest.post("/")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.contentLength(9)
			.body(Flux.<DataBuffer>never().doOnSubscribe((subscription) -> subscribed.set(true)));
		StepVerifier.create(this.reader.readMono(FORM_TYPE, request, Map.of()))
			.expectError(ContentTooLargeException.class)
			.verify(Duration.ofSeconds(5));
		assertThat(subscribed).isFalse();
	}

	@Test
	void rejectsAStreamedBodyOverTheLimitAndReleasesIt() {
		this.stock.setMaxInMemorySize(8);
		StepVerifier.create(this.reader.readMono(FORM_TYPE, request(List.of("a=123", "&b=45"), -1), Map.of()))
			.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOf(ContentTooLargeException.class)
				.satisfies((tooLarge) -> assertThat(((ContentTooLargeException) tooLarge).getStatusCode().value())
					.isEqualTo(413)))
			.verify(Duration.ofSeconds(5));
	}

	@Test
	void rejectsMoreFieldsThanTheLimitAndReleasesTheBody() {
		StepVerifier.create(this.reader.readMono(FORM_TYPE, request(List.of("a=1&b=2", "&c=3&d=4"), -1), Map.of()))
			.expectError(TooManyFormFieldsException.class)
			.verify(Duration.ofSeconds(5));
	}

	@Test
	void rejectsMalformedEscapesAndReleasesTheBody() {
		StepVerifier.create(this.reader.readMono(FORM_TYPE, request(List.of("a=%", "G1"), -1), Map.of()))
			.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOf(MalformedFormDataException.class)
				.hasMessageContaining("'a'"))
			.verify(Duration.ofSeconds(5));
	}

	@Test
	void releasesWhatWasReadWhenTheBodyFails() {
		Flux<DataBuffer> body = Flux.concat(Flux.just(this.factory.bufferOf("a=1".getBytes())),
				Mono.error(new IllegalStateException("connection reset")));
		MockServerHttpRequest request = MockServerHttpRequest.post("/")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.body(body);
		StepVerifier.create(this.reader.readMono(FORM_TYPE, request, Map.of()))
			.expectErrorMessage("connection reset")
			.verify(Duration.ofSeconds(5));
	}

	@Test
	void releasesWhatWasReadWhenCancelled() {
		Flux<DataBuffer> body = Flux.concat(Flux.just(this.factory.bufferOf("a=1".getBytes())), Flux.never());
		MockServerHttpRequest request = MockServerHttpRequest.post("/")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.body(body);
		StepVerifier.create(this.reader.readMono(FORM_TYPE, request, Map.of()))
			.expectSubscription()
			.expectNoEvent(Duration.ofMillis(50))
			.thenCancel()
			.verify(Duration.ofSeconds(5));
	}

	@ParameterizedTest(name = "{0}, request details logged: {1}")
	@CsvSource({ "INFO, false", "INFO, true", "DEBUG, false", "DEBUG, true", "TRACE, true" })
	void logsWithoutChangingTheOutcomeAtAnyLevel(String level, boolean details) {
		this.stock.setEnableLoggingRequestDetails(details);
		List<String> messages;
		try (CapturedLogs log = CapturedLogs.of(FormHttpMessageReader.class, Level.toLevel(level))) {
			// A value and a name invalid in UTF-8, neither of which is read
			MultiValueMap<String, String> form = this.reader.readMono(FORM_TYPE, request("p=%FF&q=1&%FF=1", -1), Map.of())
				.block();
			assertThat(form.getFirst("q")).isEqualTo("1");
			assertThat(form.toString()).contains("q=[1]");
			messages = log.events().stream().map(ILoggingEvent::getFormattedMessage).toList();
		}
		if (level.equals("INFO")) {
			assertThat(messages).isEmpty();
		}
		else {
			assertThat(messages).singleElement()
				.asString()
				.contains(details ? "{p=[\uFFFD], q=[1], \uFFFD=[1]}" : "form fields [p, q, \uFFFD] (content masked)");
		}
	}

	@Test
	void rejectsANegativeFieldLimit() {
		assertThatIllegalArgumentException().isThrownBy(() -> new LazyFormHttpMessageReader(this.stock, -1));
	}

	private MockServerHttpRequest request(String body, long contentLength) {
		return request(List.of(body), contentLength);
	}

	private MockServerHttpRequest request(List<String> chunks, long contentLength) {
		MockServerHttpRequest.BodyBuilder builder = MockServerHttpRequest.post("/")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED);
		if (contentLength >= 0) {
			builder.contentLength(contentLength);
		}
		return builder.body(Flux.fromIterable(chunks)
			.filter((chunk) -> !chunk.isEmpty())
			.map((chunk) -> this.factory.bufferOf(chunk.getBytes(StandardCharsets.UTF_8))));
	}

}
