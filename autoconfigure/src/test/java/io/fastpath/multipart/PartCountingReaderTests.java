package io.fastpath.multipart;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.Part;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.web.server.ServerWebInputException;

import io.fastpath.codec.ReadListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which part readers' {@code IllegalArgumentException} {@link PartCountingReader} answers
 * as a malformed form: Spring's, whose only such exceptions are its parser's for part
 * headers; not another reader's, whose may be anything.
 */
class PartCountingReaderTests {

	private static final ResolvableType PART = ResolvableType.forClass(Part.class);

	private static final PartLimit NO_LIMIT = new PartLimit(100, (max) -> new TooManyPartsException(max + 1, max));

	@Test
	void aPartTypeSpringsReaderCannotParseIsAMalformedForm() {
		PartCountingReader reader = new PartCountingReader(new DefaultPartHttpMessageReader(), NO_LIMIT, ReadListener.NONE);
		StepVerifier.create(reader.read(PART, form("Content-Type: text/"), Map.of()))
			.expectErrorSatisfies((error) -> assertThat(error).isInstanceOfSatisfying(ServerWebInputException.class,
					(input) -> {
						assertThat(input.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
						assertThat(input.getReason()).startsWith(
								"Malformed multipart form: A part header cannot be parsed: Invalid mime type \"text/\"");
					}))
			.verify(Duration.ofSeconds(5));
	}

	@Test
	void anotherPartReadersIllegalArgumentExceptionIsLeftAsItIs() {
		IllegalArgumentException ownError = new IllegalArgumentException("a fault of the reader's own");
		DefaultPartHttpMessageReader another = new DefaultPartHttpMessageReader() {

			@Override
			public Flux<Part> read(ResolvableType elementType, ReactiveHttpInputMessage message,
					Map<String, Object> hints) {
				return Flux.error(ownError);
			}

		};
		PartCountingReader reader = new PartCountingReader(another, NO_LIMIT, ReadListener.NONE);
		StepVerifier.create(reader.read(PART, form("Content-Type: text/plain"), Map.of()))
			.expectErrorSatisfies((error) -> assertThat(error).isSameAs(ownError))
			.verify(Duration.ofSeconds(5));
	}

	private static MockServerHttpRequest form(String typeHeader) {
		String body = "--b0und\r\nContent-Disposition: form-data; name=\"f\"\r\n" + typeHeader
				+ "\r\n\r\nvalue\r\n--b0und--\r\n";
		return MockServerHttpRequest.post("/")
			.contentType(MediaType.parseMediaType("multipart/form-data; boundary=b0und"))
			.body(Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body.getBytes(StandardCharsets.UTF_8))));
	}

}
