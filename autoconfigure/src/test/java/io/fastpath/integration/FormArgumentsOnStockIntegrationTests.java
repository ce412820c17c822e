package io.fastpath.integration;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.netty.util.IllegalReferenceCountException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Hooks;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.codec.DecodingException;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.MultipartBodyBuilder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code fastpath.enabled=false} the form is read by Spring's stock reader, and
 * controllers written against {@code @FormParam}, {@code FormParameters} and
 * {@code RequestParameters} keep working on it: the application runs the same on stock
 * Spring, for comparison.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "fastpath.enabled=false", "spring.webflux.problemdetails.enabled=true",
				"spring.webflux.multipart.max-parts=12", "spring.webflux.multipart.max-in-memory-size=1KB" })
abstract class FormArgumentsOnStockIntegrationTests extends RealServerTests {

	@Test
	void formArgumentsAreBoundFromTheStockForm() {
		ResponseEntity<String> response = postForm("/form/fields?source=query",
				"name=Ada+Lovelace&age=36&active=true&color=GREEN&score=1&score=2&nickname=%C3%A0da&source=form");
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(response.getBody()).isEqualTo("{\"name\":\"Ada Lovelace\",\"age\":36,\"active\":true,"
				+ "\"color\":\"GREEN\",\"scores\":[1,2],\"nickname\":\"àda\",\"city\":\"Paris\",\"ticket\":\"null\","
				+ "\"formNames\":[\"name\",\"age\",\"active\",\"color\",\"score\",\"nickname\",\"source\"],"
				+ "\"source\":[\"query\",\"form\"],\"sameForm\":false}");
		assertThat(this.recorder.reads()).isEmpty();
	}

	@Test
	void formChangedByAFilterIsTheFormThatArgumentsSee() {
		ResponseEntity<String> response = this.client.post()
			.uri("/form/fields")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.header("X-Sanitize-Form", "true")
			.bodyValue("name=%3Cscript%3E&age=1&active=true&color=RED&score=1&source=form")
			.exchangeToMono((answer) -> answer.toEntity(String.class))
			.block();
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(response.getBody()).startsWith("{\"name\":\"sanitized\",")
			.contains("\"formNames\":[\"name\",\"age\",\"active\",\"color\",\"score\",\"source\"]",
					"\"source\":[\"form\"]");
	}

	@Test
	void missingRequiredFieldIsABadRequestNamingTheField() {
		ResponseEntity<String> response = postForm("/form/fields", "age=1");
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
		assertThat(response.getBody()).contains("Required form field 'name'");
	}

	@Test
	void formArgumentsAreBoundFromAMultipartFormReadByStock() {
		MultipartBodyBuilder form = new MultipartBodyBuilder();
		form.part("name", "Ada Lovelace");
		form.part("age", "36");
		form.part("active", "true");
		form.part("color", "GREEN");
		form.part("score", "1");
		form.part("score", "2");
		form.part("source", "form");
		ResponseEntity<String> response = postMultipart("/form/fields?source=query", form);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(response.getBody()).startsWith("{\"name\":\"Ada Lovelace\",\"age\":36,\"active\":true,"
				+ "\"color\":\"GREEN\",\"scores\":[1,2],\"nickname\":\"-\",\"city\":\"Paris\",\"ticket\":\"null\",")
			.endsWith("\"source\":[\"query\",\"form\"],\"sameForm\":false}");
	}

	@Test
	void morePartsThanStocksLimitIsContentTooLarge() {
		MultipartBodyBuilder form = new MultipartBodyBuilder();
		for (int i = 0; i < 13; i++) {
			form.part("name", "x");
		}
		assertThat(postOverStocksLimit(form).getStatusCode()).isEqualTo(HttpStatus.CONTENT_TOO_LARGE);
	}

	@Test
	void textPartOverStocksMemoryLimitIsContentTooLarge() {
		MultipartBodyBuilder form = new MultipartBodyBuilder();
		form.part("name", "x".repeat(2000));
		assertThat(postOverStocksLimit(form).getStatusCode()).isEqualTo(HttpStatus.CONTENT_TOO_LARGE);
	}

	/**
	 * Post a form that stock's parser fails on a limit, with the errors Reactor drops while
	 * the server reads it collected and checked instead of logged: on Reactor Netty, Spring
	 * Framework's {@code MultipartParser} before 7.0.10 releases a buffer of such a body
	 * twice (Boot 4.0.7's leg printed Netty's error), at times after the answer, so they are
	 * collected for a while after it; later versions drop none.
	 */
	private ResponseEntity<String> postOverStocksLimit(MultipartBodyBuilder form) {
		List<Throwable> dropped = new CopyOnWriteArrayList<>();
		Hooks.onErrorDropped(dropped::add);
		ResponseEntity<String> response;
		try {
			response = postMultipart("/form/fields", form);
			Awaitility.await().pollDelay(Duration.ofMillis(500)).until(() -> true);
		}
		finally {
			Hooks.resetOnErrorDropped();
		}
		if ("Netty".equals(server()) && isSpringFramework70Before10()) {
			assertThat(dropped).as("errors of stock's parser releasing a buffer twice")
				.allSatisfy((error) -> assertThat(error).isInstanceOf(IllegalReferenceCountException.class));
		}
		else {
			assertThat(dropped).as("errors Reactor dropped").isEmpty();
		}
		return response;
	}

	@Test
	void truncatedMultipartFormIsABadRequest() {
		assumeMultipartParserReleasesTruncatedBodies();
		// Stock's parser drops a second error of the body, on Reactor Netty at times after the
		// answer: awaited, collected and checked, not logged
		List<Throwable> dropped = new CopyOnWriteArrayList<>();
		Hooks.onErrorDropped(dropped::add);
		try {
			ResponseEntity<String> response = this.client.post()
				.uri("/form/fields")
				.header("Content-Type", "multipart/form-data; boundary=x")
				.bodyValue("--x\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAda".getBytes())
				.exchangeToMono((answer) -> answer.toEntity(String.class))
				.block();
			assertThat(response.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
			assertThat(response.getBody()).contains("Could not find end of body");
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !dropped.isEmpty());
		}
		finally {
			Hooks.resetOnErrorDropped();
		}
		assertThat(dropped).as("errors stock's parser dropped")
			.singleElement()
			.isInstanceOf(DecodingException.class);
	}

}
