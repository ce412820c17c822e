package io.fastpath.integration;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.BodyInserters;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Forms over real HTTP, read by Fastpath's lazy form reader on each server:
 * {@code @FormParam} of each supported type, {@code FormParameters},
 * {@code RequestParameters}, {@code getFormData()}, {@code @ModelAttribute}, functional
 * {@code formData()}, the limits and malformed bodies (answered as RFC 9457 problem
 * details, which name the field), with Netty's leak detector at paranoid.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.http.codecs.max-in-memory-size=8KB", "fastpath.form.max-parameters=20",
				"spring.webflux.problemdetails.enabled=true" })
abstract class FormIntegrationTests extends RealServerTests {

	private static final String FIELDS = "name=Ada+Lovelace&age=36&active=true&color=GREEN&score=1&score=2"
			+ "&nickname=%C3%A0da&ticket=&source=form";

	@Test
	void formParamsOfEachTypeAreBoundFromOneReadOfTheBody() {
		ResponseEntity<String> response = postForm("/form/fields?source=query", FIELDS);
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(response.getBody()).isEqualTo("{\"name\":\"Ada Lovelace\",\"age\":36,\"active\":true,"
				+ "\"color\":\"GREEN\",\"scores\":[1,2],\"nickname\":\"àda\",\"city\":\"Paris\",\"ticket\":\"null\","
				+ "\"formNames\":[\"name\",\"age\",\"active\",\"color\",\"score\",\"nickname\",\"ticket\",\"source\"],"
				+ "\"source\":[\"query\",\"form\"],\"sameForm\":true}");
		assertThat(serverReads()).containsExactly("server:LazyFormHttpMessageReader");
	}

	@Test
	void optionalAndDefaultedFieldsMayBeMissing() {
		ResponseEntity<String> response = postForm("/form/fields", "name=x&age=1&active=false&color=RED&score=7");
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(response.getBody()).contains("\"scores\":[7]", "\"nickname\":\"-\"", "\"city\":\"Paris\"",
				"\"ticket\":\"null\"", "\"source\":[]");
	}

	@Test
	void missingRequiredFieldIsABadRequestNamingTheField() {
		ResponseEntity<String> response = postForm("/form/fields", "age=1&active=true&color=RED&score=1");
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
		assertThat(response.getBody()).contains("Required form field 'name'");
	}

	@Test
	void fieldThatDoesNotConvertIsABadRequestAsForRequestParam() {
		ResponseEntity<String> response = postForm("/form/fields", "name=x&age=old&active=true&color=RED&score=1");
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
		assertThat(response.getBody()).contains("Type mismatch.");
	}

	@Test
	void formFieldsAreNotReadFromOtherContentTypes() {
		ResponseEntity<String> response = this.client.post()
			.uri("/form/fields?name=x")
			.contentType(MediaType.TEXT_PLAIN)
			.bodyValue(FIELDS)
			.exchangeToMono((answer) -> answer.toEntity(String.class))
			.block();
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
		assertThat(response.getBody()).contains("Required form field 'name'");
		assertThat(serverReads()).isEmpty();
	}

	@Test
	void modelAttributeIsBoundFromTheLazyForm() {
		ResponseEntity<String> response = postForm("/form/model", "email=a%40b.io&seats=3&tags=x&tags=y");
		assertThat(response.getBody()).isEqualTo("{\"email\":\"a@b.io\",\"seats\":3,\"tags\":[\"x\",\"y\"]}");
		assertThat(serverReads()).containsExactly("server:LazyFormHttpMessageReader");
	}

	@Test
	void functionalFormDataIsReadByTheLazyReader() {
		ResponseEntity<String> response = postForm("/form/functional", "a=1&b=%2B&a=2");
		assertThat(response.getBody()).isEqualTo("{\"a\":\"1\",\"b\":\"+\"}");
		assertThat(serverReads()).containsExactly("server:LazyFormHttpMessageReader");
	}

	@Test
	void exchangeFormDataIsReadByTheLazyReader() {
		assertThat(postForm("/form/first", "p=0&q=%E2%82%AC+1").getBody()).isEqualTo("€ 1");
		assertThat(serverReads()).containsExactly("server:LazyFormHttpMessageReader");
	}

	@Test
	void formInTheRequestCharsetIsDecodedWithIt() {
		ResponseEntity<String> response = this.client.post()
			.uri("/form/first")
			.contentType(new MediaType(MediaType.APPLICATION_FORM_URLENCODED, StandardCharsets.ISO_8859_1))
			.bodyValue("q=caf%E9")
			.exchangeToMono((answer) -> answer.toEntity(String.class))
			.block();
		assertThat(response.getBody()).isEqualTo("café");
	}

	@Test
	void moreFieldsThanTheLimitIsContentTooLarge() {
		ResponseEntity<String> response = postForm("/form/first", "f=1&".repeat(21));
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.CONTENT_TOO_LARGE);
		assertThat(response.getBody()).contains("more than 20 fields");
	}

	@Test
	void bodyOverTheSizeLimitIsContentTooLarge() {
		ResponseEntity<String> response = postForm("/form/first", "q=" + "x".repeat(9000));
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.CONTENT_TOO_LARGE);
	}

	@Test
	void chunkedBodyOverTheSizeLimitIsContentTooLarge() {
		byte[] body = ("q=" + "x".repeat(9000)).getBytes(StandardCharsets.US_ASCII);
		ResponseEntity<String> response = post("/form/first", chunks(body, 1000));
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.CONTENT_TOO_LARGE);
	}

	@Test
	void chunkedFormIsReadWhole() {
		byte[] body = "p=0&q=split+across+chunks".getBytes(StandardCharsets.US_ASCII);
		assertThat(post("/form/first", chunks(body, 3)).getBody()).isEqualTo("split across chunks");
	}

	@Test
	void malformedEscapeIsABadRequestNamingTheField() {
		ResponseEntity<String> response = postForm("/form/first", "q=ok&bad=%G1");
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
		assertThat(response.getBody()).contains("Malformed percent-escape in form field 'bad'");
	}

	@Test
	void fieldInvalidInTheCharsetIsABadRequestNamingTheFieldWhenRead() {
		ResponseEntity<String> response = postForm("/form/first", "p=%FF&q=%C3%28");
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
		assertThat(response.getBody()).contains("Form field 'q' is not valid UTF-8");
		// Fields that are not read are not decoded, so p's invalid byte goes unnoticed
		assertThat(postForm("/form/first", "p=%FF&q=1").getBody()).isEqualTo("1");
	}

	private List<String> serverReads() {
		return this.recorder.reads().stream().filter((read) -> read.startsWith("server:")).toList();
	}

	private ResponseEntity<String> post(String uri, Flux<DataBuffer> form) {
		return this.client.post()
			.uri(uri)
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.body(BodyInserters.fromDataBuffers(form))
			.exchangeToMono((response) -> response.toEntity(String.class))
			.block();
	}

}
