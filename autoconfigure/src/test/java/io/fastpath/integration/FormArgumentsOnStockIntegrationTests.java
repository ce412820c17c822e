package io.fastpath.integration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code fastpath.enabled=false} the form is read by Spring's stock reader, and
 * controllers written against {@code @FormParam}, {@code FormParameters} and
 * {@code RequestParameters} keep working on it: the application runs the same on stock
 * Spring, for comparison.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "fastpath.enabled=false", "spring.webflux.problemdetails.enabled=true" })
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
	void missingRequiredFieldIsABadRequestNamingTheField() {
		ResponseEntity<String> response = postForm("/form/fields", "age=1");
		assertThat(response.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
		assertThat(response.getBody()).contains("Required form field 'name'");
	}

}
