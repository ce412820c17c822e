package io.fastpath.integration;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.TreeMap;
import java.util.zip.CRC32;

import com.fasterxml.jackson.annotation.JsonView;
import io.fastpath.form.FormParam;
import io.fastpath.form.FormParameters;
import io.fastpath.form.RequestParameters;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.http.codec.multipart.FilePart;
import org.springframework.http.codec.multipart.FilePartEvent;
import org.springframework.http.codec.multipart.FormFieldPart;
import org.springframework.http.codec.multipart.FormPartEvent;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.codec.multipart.PartEvent;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;

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

	@Bean
	ExchangeEnds exchangeEnds() {
		return new ExchangeEnds();
	}

	@Bean
	HandlingFailures handlingFailures() {
		return new HandlingFailures();
	}

	@Bean
	ServerReads serverReads() {
		return new ServerReads();
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

		@PostMapping("/json/people/count")
		Mono<Long> peopleCount(@RequestBody Flux<Person> people) {
			return people.count();
		}

		/**
		 * How many people the body held, and whether it came with a length or chunked. Not
		 * required: WebFlux answers an empty {@code Flux} of a required body with 400.
		 */
		@PostMapping(path = "/json/people/framing", produces = "text/plain")
		Mono<String> peopleFraming(ServerHttpRequest request, @RequestBody(required = false) Flux<Person> people) {
			String framing = (request.getHeaders().getContentLength() >= 0) ? "length" : "chunked";
			return people.count().map((count) -> count + " " + framing);
		}

		@PostMapping(path = "/json/people/first", produces = "text/plain")
		Mono<String> firstPerson(@RequestBody Flux<Person> people) {
			return people.next().map(Person::name);
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

	@RestController
	static class FormController {

		@PostMapping("/form/fields")
		Mono<Map<String, Object>> fields(@FormParam String name, @FormParam int age, @FormParam boolean active,
				@FormParam Color color, @FormParam("score") List<Integer> scores, @FormParam Optional<String> nickname,
				@FormParam(defaultValue = "Paris") String city, @FormParam(required = false) @Nullable Long ticket,
				FormParameters form, RequestParameters parameters, ServerWebExchange exchange) {
			Map<String, Object> fields = new LinkedHashMap<>();
			fields.put("name", name);
			fields.put("age", age);
			fields.put("active", active);
			fields.put("color", color);
			fields.put("scores", scores);
			fields.put("nickname", nickname.orElse("-"));
			fields.put("city", city);
			fields.put("ticket", String.valueOf(ticket));
			fields.put("formNames", List.copyOf(form.names()));
			fields.put("source", parameters.getAll("source"));
			return exchange.getFormData().map((formData) -> {
				fields.put("sameForm", FormParameters.of(formData) == form);
				return fields;
			});
		}

		/**
		 * Each file part as {@code filename:size:first bytes}, read from memory or disk. (A
		 * plain {@code Part} or {@code FilePart} argument is not here: WebFlux binds those
		 * with its own request part resolver, by parameter name, before any other.)
		 */
		@PostMapping("/form/files")
		Mono<List<String>> files(@FormParam("cover") Optional<FilePart> coverPage,
				@FormParam("attachment") List<FilePart> attachments, @FormParam Optional<Part> extra,
				@FormParam String note) {
			List<Part> parts = new ArrayList<>();
			coverPage.ifPresent(parts::add);
			parts.addAll(attachments);
			extra.ifPresent(parts::add);
			return Flux.fromIterable(parts)
				.concatMap((part) -> DataBufferUtils.join(part.content()).map((content) -> {
					String start = content.toString(0, Math.min(5, content.readableByteCount()),
							StandardCharsets.UTF_8);
					String described = ((part instanceof FilePart filePart) ? filePart.filename() : part.name()) + ":"
							+ content.readableByteCount() + ":" + start;
					DataBufferUtils.release(content);
					return described;
				}))
				.concatWithValues("note:" + note)
				.collectList();
		}

		@PostMapping("/form/parameters")
		String parameters(FormParameters form, RequestParameters parameters) {
			String answer = "q=" + parameters.getFirst("q") + " p=" + form.getFirst("p");
			return parameters.getQuery().isEmpty() ? answer : answer + " all q=" + parameters.getAll("q");
		}

		@PostMapping("/form/model")
		Signup model(@ModelAttribute Signup signup) {
			return signup;
		}

		@PostMapping("/form/first")
		Mono<String> first(ServerWebExchange exchange) {
			return exchange.getFormData().map((formData) -> String.valueOf(formData.getFirst("q")));
		}

	}

	/**
	 * Multipart forms read through {@code getMultipartData()}: each part described with
	 * the size and CRC-32 of its content, read whole (sorted: Spring's map of parts is
	 * a hash map); a file part copied with {@code transferTo}; the text fields.
	 */
	@RestController
	static class MultipartController {

		@PostMapping("/multipart/parts")
		Mono<List<String>> parts(ServerWebExchange exchange) {
			return exchange.getMultipartData()
				.flatMapMany((parts) -> Flux.fromIterable(parts.values()).concatMap(Flux::fromIterable))
				.concatMap((part) -> Checksums.of(part.content()).map((checksum) -> part.name() + ":"
						+ ((part instanceof FilePart file) ? file.filename() : "-") + ":" + checksum))
				.collectSortedList();
		}

		@PostMapping("/multipart/transfer")
		Mono<String> transfer(ServerWebExchange exchange) {
			return exchange.getMultipartData().flatMap((parts) -> {
				FilePart file = (FilePart) parts.getFirst("file");
				Path copy = createTempFile();
				return file.transferTo(copy)
					.then(Checksums.of(DataBufferUtils.read(copy, DefaultDataBufferFactory.sharedInstance, 8192)))
					.doFinally((signal) -> deleteFile(copy));
			});
		}

		/**
		 * The parts as {@code Flux<PartEvent>}, in order: each as its name, filename, kind
		 * of event and the size and CRC-32 of its content (a field's value in UTF-8),
		 * every buffer released as it comes.
		 */
		@PostMapping("/multipart/events")
		Mono<List<String>> events(@RequestBody Flux<PartEvent> events) {
			return Mono.defer(() -> {
				List<String> parts = new ArrayList<>();
				CRC32 crc = new CRC32();
				long[] size = new long[1];
				return events.doOnNext((event) -> {
					if (event instanceof FormPartEvent form) {
						byte[] value = form.value().getBytes(StandardCharsets.UTF_8);
						crc.update(value);
						size[0] += value.length;
					}
					else {
						DataBuffer content = event.content();
						try (DataBuffer.ByteBufferIterator views = content.readableByteBuffers()) {
							views.forEachRemaining((view) -> {
								size[0] += view.remaining();
								crc.update(view);
							});
						}
						DataBufferUtils.release(content);
					}
					if (event.isLast()) {
						String kind = (event instanceof FormPartEvent) ? "form"
								: (event instanceof FilePartEvent file) ? "file " + file.filename() : "part";
						parts.add(event.name() + ":" + kind + ":" + size[0] + "/" + Long.toHexString(crc.getValue()));
						crc.reset();
						size[0] = 0;
					}
				}).then(Mono.fromSupplier(() -> parts));
			});
		}

		@PostMapping("/multipart/fields")
		Mono<String> fields(ServerWebExchange exchange) {
			return exchange.getMultipartData().map((parts) -> {
				List<String> fields = new ArrayList<>();
				new TreeMap<>(parts).forEach((name, named) -> named.stream()
					.filter(FormFieldPart.class::isInstance)
					.forEach((part) -> fields.add(name + "=" + ((FormFieldPart) part).value())));
				return String.join("&", fields);
			});
		}

		private static Path createTempFile() {
			try {
				return Files.createTempFile("fastpath-transfer", ".bin");
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		private static void deleteFile(Path file) {
			try {
				Files.deleteIfExists(file);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

	}

	/**
	 * Bodies for client tests, the same bytes framed with a Content-Length or chunked (in
	 * 4 KB pieces): {@code count} people as JSON, {@code size} bytes of text, and error
	 * answers with a JSON body.
	 */
	@RestController
	static class ClientBodiesController {

		private final JsonMapper mapper;

		ClientBodiesController(JsonMapper mapper) {
			this.mapper = mapper;
		}

		@GetMapping("/client/people")
		ResponseEntity<Flux<DataBuffer>> people(@RequestParam int count, @RequestParam boolean chunked) {
			return body(HttpStatus.OK, MediaType.APPLICATION_JSON, this.mapper.writeValueAsBytes(people(count)),
					chunked);
		}

		@GetMapping("/client/text")
		ResponseEntity<Flux<DataBuffer>> text(@RequestParam int size, @RequestParam boolean chunked) {
			StringBuilder text = new StringBuilder(size);
			for (int i = 0; text.length() < size; i++) {
				text.append("line ").append(i).append(" é\n");
			}
			return body(HttpStatus.OK, MediaType.TEXT_PLAIN,
					text.toString().getBytes(StandardCharsets.UTF_8), chunked);
		}

		@GetMapping("/client/error")
		ResponseEntity<Flux<DataBuffer>> error(@RequestParam int status, @RequestParam int count,
				@RequestParam boolean chunked) {
			return body(HttpStatus.valueOf(status), MediaType.APPLICATION_JSON,
					this.mapper.writeValueAsBytes(Map.of("error", "failed", "people", people(count))), chunked);
		}

		static List<Person> people(int count) {
			List<Person> people = new ArrayList<>(count);
			for (int i = 0; i < count; i++) {
				people.add(new Person("person-" + i + "-ü", "secret-" + i, (i % 3 == 0) ? null : i % 90));
			}
			return people;
		}

		private static ResponseEntity<Flux<DataBuffer>> body(HttpStatus status, MediaType type, byte[] bytes,
				boolean chunked) {
			ResponseEntity.BodyBuilder builder = ResponseEntity.status(status).contentType(type);
			if (!chunked) {
				return builder.contentLength(bytes.length)
					.body(Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(bytes)));
			}
			int piece = 4096;
			return builder.body(Flux.range(0, (bytes.length + piece - 1) / piece)
				.map((index) -> DefaultDataBufferFactory.sharedInstance.wrap(Arrays.copyOfRange(bytes,
						index * piece, Math.min(bytes.length, (index + 1) * piece)))));
		}

	}

	/**
	 * {@code Flux} responses, built per request as a repository gives them: {@code count}
	 * people as a JSON array, NDJSON, server-sent events of plain values and
	 * {@code ServerSentEvent}s; a {@code Flux} that fails before its first value; and a
	 * {@code Flux} that emits one person and waits until the client has received it
	 * before it goes on (it never completes if a batching writer holds the first person).
	 */
	@RestController
	static class WriteController {

		private final WriteHandshakes handshakes;

		WriteController(WriteHandshakes handshakes) {
			this.handshakes = handshakes;
		}

		@GetMapping(path = "/write/people", produces = { "application/json", "application/x-ndjson",
				"text/event-stream" })
		Flux<Person> people(@RequestParam int count) {
			return Flux.range(0, count).map(WriteController::person);
		}

		@GetMapping(path = "/write/events", produces = "text/event-stream")
		Flux<ServerSentEvent<Person>> events(@RequestParam int count) {
			return Flux.range(0, count)
				.map((index) -> ServerSentEvent.builder(person(index)).id(Integer.toString(index)).event("person").build());
		}

		@GetMapping(path = "/write/failing", produces = { "application/json", "application/x-ndjson",
				"text/event-stream" })
		Flux<Person> failing() {
			return Flux.error(new IllegalStateException("no people today"));
		}

		@GetMapping(path = "/write/handshake", produces = { "application/json", "application/x-ndjson",
				"text/event-stream" })
		Flux<Person> handshake(@RequestParam String id) {
			return Flux.concat(Mono.just(person(0)), this.handshakes.received(id).then(Mono.just(person(1))));
		}

		static Person person(int index) {
			return new Person("person-" + index + "-ü \"quoted\"", "secret-" + index, (index % 3 == 0) ? null : index);
		}

	}

	/** What the client of {@code /write/handshake} has received, by request id. */
	static class WriteHandshakes {

		private final Map<String, Sinks.One<Void>> received = new ConcurrentHashMap<>();

		Mono<Void> received(String id) {
			return sink(id).asMono();
		}

		void receive(String id) {
			sink(id).tryEmitEmpty();
		}

		private Sinks.One<Void> sink(String id) {
			return this.received.computeIfAbsent(id, (key) -> Sinks.one());
		}

	}

	@Bean
	WriteHandshakes writeHandshakes() {
		return new WriteHandshakes();
	}

	/**
	 * A filter that sanitizes the form before any controller sees it, as applications do:
	 * on requests with {@code X-Sanitize-Form}, the {@code name} field is replaced.
	 */
	@Bean
	WebFilter formSanitizingFilter() {
		return (exchange, chain) -> {
			if (!exchange.getRequest().getHeaders().containsHeader("X-Sanitize-Form")) {
				return chain.filter(exchange);
			}
			return exchange.getFormData().doOnNext((form) -> form.set("name", "sanitized")).then(chain.filter(exchange));
		};
	}

	@Bean
	RouterFunction<ServerResponse> functionalForm() {
		return RouterFunctions.route()
			.POST("/form/functional", (request) -> request.formData()
				.flatMap((formData) -> ServerResponse.ok().bodyValue(formData.toSingleValueMap())))
			.build();
	}

	enum Color {

		RED, GREEN

	}

	record Signup(String email, int seats, List<String> tags) {

	}

	record Person(@JsonView(Summary.class) String name, String secret, Integer age) {

		interface Summary {

		}

	}

}
