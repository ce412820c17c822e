package io.fastpath.multipart;

import org.junit.jupiter.api.Test;

import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ResponseStatusException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How a multipart read's error is answered: limits with 413, a malformed body with 400,
 * whichever part reader raised it.
 *
 * @author Fastpath
 */
class MultipartErrorTranslationTests {

	@Test
	void fastpathsPartLimitIsContentTooLargeByItsType() {
		assertThat(status(new TooManyPartsException(13, 12))).isEqualTo(HttpStatus.CONTENT_TOO_LARGE);
	}

	@Test
	void stocksPartLimitIsContentTooLargeByItsMessageWhichIsAllItHas() {
		// DefaultPartHttpMessageReader's own words (FormArgumentsOnStockIntegrationTests pins them)
		assertThat(status(new DecodingException("Too many parts (13/12 allowed)")))
			.isEqualTo(HttpStatus.CONTENT_TOO_LARGE);
	}

	@Test
	void aSizeLimitIsContentTooLarge() {
		assertThat(status(new DataBufferLimitException("Part exceeded the memory usage limit of 1024 bytes")))
			.isEqualTo(HttpStatus.CONTENT_TOO_LARGE);
	}

	@Test
	void aMalformedBodyIsABadRequestNamingWhatIsWrong() {
		Throwable answer = MultipartReaders.translateError(new DecodingException("Could not find end of body"));
		assertThat(((ResponseStatusException) answer).getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
		assertThat(((ResponseStatusException) answer).getReason())
			.isEqualTo("Malformed multipart form: Could not find end of body");
	}

	@Test
	void anyOtherErrorIsLeftAsItIs() {
		IllegalStateException error = new IllegalStateException("not a multipart error");
		assertThat(MultipartReaders.translateError(error)).isSameAs(error);
	}

	private static HttpStatus status(Throwable error) {
		Throwable answer = MultipartReaders.translateError(error);
		assertThat(answer).isInstanceOf(ResponseStatusException.class).hasCause(error);
		return HttpStatus.resolve(((ResponseStatusException) answer).getStatusCode().value());
	}

}
