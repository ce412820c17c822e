package io.fastpath.integration;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import io.fastpath.test.TestSeed;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Whole bodies over real HTTP: each server reads {@code @RequestBody} values and
 * Boot's {@code WebClient.Builder} reads the echoes, both through Fastpath's aggregator,
 * with Netty's leak detector at paranoid (see NettyLeakDetectionExtension).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.http.codecs.max-in-memory-size=256KB")
abstract class WholeBodyIntegrationTests extends RealServerTests {

	private static final int LIMIT = 256 * 1024;

	@Test
	void smallStringInOneChunkIsReadThroughTheAggregatorOnBothSides() {
		String echoed = this.client.post()
			.uri("/echo/string")
			.contentType(MediaType.TEXT_PLAIN)
			.bodyValue("hello fastpath")
			.retrieve()
			.bodyToMono(String.class)
			.block();
		assertThat(echoed).isEqualTo("hello fastpath");
		assertThat(this.recorder.reads()).containsExactly("server:StringDecoder", "client:StringDecoder");
	}

	@Test
	void largeStringInManyChunksIsEchoedWhole() {
		String text = randomText(200_000);
		byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
		String echoed = this.client.post()
			.uri("/echo/string")
			.contentType(MediaType.TEXT_PLAIN)
			.body(BodyInserters.fromDataBuffers(chunks(bytes, 1000)))
			.retrieve()
			.bodyToMono(String.class)
			.block();
		assertThat(echoed).isEqualTo(text);
		assertThat(this.recorder.reads()).containsExactly("server:StringDecoder", "client:StringDecoder");
	}

	@Test
	void bytesWithContentLengthAreEchoedThroughToEntity() {
		byte[] bytes = new byte[150_000];
		TestSeed.random("bytesWithContentLengthAreEchoedThroughToEntity").nextBytes(bytes);
		ResponseEntity<byte[]> entity = this.client.post()
			.uri("/echo/bytes")
			.contentType(MediaType.APPLICATION_OCTET_STREAM)
			.bodyValue(bytes)
			.retrieve()
			.toEntity(byte[].class)
			.block();
		assertThat(entity.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(entity.getBody()).isEqualTo(bytes);
		assertThat(this.recorder.reads()).containsExactly("server:ByteArrayDecoder", "client:ByteArrayDecoder");
	}

	@Test
	void jsonObjectIsReadWithBootsJsonMapper() {
		FastpathTestApplication.Person person = new FastpathTestApplication.Person("Ada", "secret", 36);
		FastpathTestApplication.Person echoed = this.client.post()
			.uri("/echo/person")
			.bodyValue(person)
			.retrieve()
			.bodyToMono(FastpathTestApplication.Person.class)
			.block();
		assertThat(echoed).isEqualTo(person);
		assertThat(this.recorder.reads()).containsExactly("server:FastpathJsonDecoder", "client:FastpathJsonDecoder");
	}

	@Test
	void jsonViewOfTheRequestBodyIsApplied() {
		FastpathTestApplication.Person echoed = this.client.post()
			.uri("/echo/summary")
			.bodyValue(new FastpathTestApplication.Person("Ada", "secret", 36))
			.retrieve()
			.bodyToMono(FastpathTestApplication.Person.class)
			.block();
		assertThat(echoed).isEqualTo(new FastpathTestApplication.Person("Ada", null, null));
	}

	@Test
	void bodyAboveTheLimitWithContentLengthAnswers413AndTheNextRequestSucceeds() {
		byte[] tooLarge = new byte[LIMIT + 1];
		HttpStatus status = this.client.post()
			.uri("/echo/bytes")
			.contentType(MediaType.APPLICATION_OCTET_STREAM)
			.bodyValue(tooLarge)
			.exchangeToMono((response) -> response.releaseBody().thenReturn((HttpStatus) response.statusCode()))
			.block();
		assertThat(status).isEqualTo(HttpStatus.CONTENT_TOO_LARGE);
		assertThat(this.client.post()
			.uri("/echo/string")
			.contentType(MediaType.TEXT_PLAIN)
			.bodyValue("still serving")
			.retrieve()
			.bodyToMono(String.class)
			.block()).isEqualTo("still serving");
	}

	@Test
	void chunkedBodyAboveTheLimitAnswers413() {
		HttpStatus status = this.client.post()
			.uri("/echo/bytes")
			.contentType(MediaType.APPLICATION_OCTET_STREAM)
			.body(BodyInserters.fromDataBuffers(chunks(new byte[LIMIT + 4096], 4096)))
			.exchangeToMono((response) -> response.releaseBody().thenReturn((HttpStatus) response.statusCode()))
			.block();
		assertThat(status).isEqualTo(HttpStatus.CONTENT_TOO_LARGE);
	}

	@Test
	void errorResponseBodyIsReadByRetrieve() {
		assertThatExceptionOfType(WebClientResponseException.NotFound.class)
			.isThrownBy(() -> this.client.get().uri("/missing").retrieve().bodyToMono(String.class).block())
			.satisfies((ex) -> assertThat(ex.getResponseBodyAsString()).contains("/missing"));
	}

	private static String randomText(int length) {
		Random random = TestSeed.random("randomText");
		StringBuilder text = new StringBuilder(length);
		String alphabet = "abcdefghij klmnop\n\u00e9\u00fc\u4e2d";
		while (text.length() < length) {
			text.append(alphabet.charAt(random.nextInt(alphabet.length())));
		}
		return text.toString();
	}

}
