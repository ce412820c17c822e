package io.fastpath.integration;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import io.fastpath.integration.FastpathTestApplication.Person;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.BodyInserters;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * JSON arrays over real HTTP: {@code @RequestBody List<T>}, {@code Flux<T>} and
 * {@code long[]} on each server, read back with {@code bodyToMono(List)},
 * {@code bodyToFlux} and {@code toEntityList} through Boot's {@code WebClient.Builder},
 * with Netty's leak detector at paranoid.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
abstract class JsonArrayIntegrationTests extends RealServerTests {

	private static final List<Person> PEOPLE = IntStream.range(0, 500)
		.mapToObj((i) -> new Person("Person \"" + i + "\" \u00e9\u4e2d", "secret-" + i, i))
		.toList();

	@Test
	void listBodyIsReadByFastpathOnBothSides() {
		List<Person> echoed = this.client.post()
			.uri("/json/people")
			.bodyValue(PEOPLE)
			.retrieve()
			.bodyToMono(new ParameterizedTypeReference<List<Person>>() {
			})
			.block();
		assertThat(echoed).isEqualTo(PEOPLE);
		assertThat(this.recorder.reads()).containsExactly("server:FastpathJsonDecoder", "client:FastpathJsonDecoder");
	}

	@Test
	void listBodyInManySmallChunksIsReadWhole() {
		List<Person> echoed = this.client.post()
			.uri("/json/people")
			.contentType(MediaType.APPLICATION_JSON)
			.body(BodyInserters.fromDataBuffers(chunks(json(PEOPLE), 97)))
			.retrieve()
			.bodyToMono(new ParameterizedTypeReference<List<Person>>() {
			})
			.block();
		assertThat(echoed).isEqualTo(PEOPLE);
	}

	@Test
	void streamedArrayIsReadAsFluxAndReadBackWithBodyToFlux() {
		List<Person> echoed = this.client.post()
			.uri("/json/people/stream")
			.contentType(MediaType.APPLICATION_JSON)
			.body(BodyInserters.fromDataBuffers(chunks(json(PEOPLE), 61)))
			.retrieve()
			.bodyToFlux(Person.class)
			.collectList()
			.block();
		assertThat(echoed).isEqualTo(PEOPLE);
	}

	@Test
	void toEntityListReadsTheArray() {
		ResponseEntity<List<Person>> entity = this.client.post()
			.uri("/json/people")
			.bodyValue(PEOPLE.subList(0, 3))
			.retrieve()
			.toEntityList(Person.class)
			.block();
		assertThat(entity.getStatusCode()).isEqualTo(HttpStatus.OK);
		assertThat(entity.getBody()).isEqualTo(PEOPLE.subList(0, 3));
	}

	@Test
	void primitiveArrayIsEchoed() {
		long[] values = { 1, -2, Long.MAX_VALUE, Long.MIN_VALUE, 0 };
		long[] echoed = this.client.post().uri("/json/longs").bodyValue(values).retrieve().bodyToMono(long[].class).block();
		assertThat(echoed).containsExactly(values);
	}

	@Test
	void malformedArrayAnswers400() {
		HttpStatus status = this.client.post()
			.uri("/json/people")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("[{\"name\":\"a\"},,]")
			.exchangeToMono((response) -> response.releaseBody().thenReturn((HttpStatus) response.statusCode()))
			.block();
		assertThat(status).isEqualTo(HttpStatus.BAD_REQUEST);
	}

	@Test
	void malformedStreamedArrayAnswers400() {
		HttpStatus status = this.client.post()
			.uri("/json/people/stream")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("[{\"name\":\"a\"} {\"name\":\"b\"}]")
			.exchangeToMono((response) -> response.releaseBody().thenReturn((HttpStatus) response.statusCode()))
			.block();
		assertThat(status).isEqualTo(HttpStatus.BAD_REQUEST);
	}

	private static byte[] json(List<Person> people) {
		List<String> objects = new ArrayList<>();
		for (Person person : people) {
			objects.add("{\"name\":\"" + person.name().replace("\"", "\\\"") + "\",\"secret\":\"" + person.secret()
					+ "\",\"age\":" + person.age() + "}");
		}
		return ("[" + String.join(",\n ", objects) + "]").getBytes(StandardCharsets.UTF_8);
	}

}
