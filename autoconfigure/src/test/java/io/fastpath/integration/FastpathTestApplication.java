package io.fastpath.integration;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonView;
import reactor.core.publisher.Flux;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * A WebFlux application for the integration tests: endpoints that read whole bodies of
 * each kind the aggregator serves and echo them back.
 */
@SpringBootApplication
public class FastpathTestApplication {

	@Bean
	@Order(Ordered.LOWEST_PRECEDENCE)
	ReadMonoRecorder readMonoRecorder() {
		return new ReadMonoRecorder();
	}

	@RestController
	static class EchoController {

		@PostMapping(path = "/echo/string", produces = "text/plain")
		String string(@RequestBody String body) {
			return body;
		}

		@PostMapping(path = "/echo/bytes", produces = "application/octet-stream")
		byte[] bytes(@RequestBody byte[] body) {
			return body;
		}

		@PostMapping("/echo/person")
		Person person(@RequestBody Person person) {
			return person;
		}

		@PostMapping("/json/people")
		List<Person> people(@RequestBody List<Person> people) {
			return people;
		}

		@PostMapping(path = "/json/people/stream", produces = "application/x-ndjson")
		Flux<Person> peopleStream(@RequestBody Flux<Person> people) {
			return people;
		}

		@PostMapping("/json/longs")
		long[] longs(@RequestBody long[] values) {
			return values;
		}

		@PostMapping("/echo/summary")
		Person summary(@RequestBody @JsonView(Person.Summary.class) Person person) {
			return person;
		}

	}

	record Person(@JsonView(Summary.class) String name, String secret, Integer age) {

		interface Summary {

		}

	}

}
