package io.fastpath.integration;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.http.client.MultipartBodyBuilder;
import org.springframework.http.codec.multipart.FilePart;
import org.springframework.http.codec.multipart.FilePartEvent;
import org.springframework.http.codec.multipart.FormFieldPart;
import org.springframework.http.codec.multipart.FormPartEvent;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.codec.multipart.PartEvent;
import org.springframework.util.MultiValueMap;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestPart;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.function.BodyExtractors;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ServerWebExchange;

import io.fastpath.form.FormParam;

/**
 * Every way an application reaches the parts of a multipart request, each answering
 * with what it read: every part as {@code name|kind|size/crc32} of its content, sorted
 * ({@link #describe}). No handler deletes a part that Fastpath read: the files are left
 * to the request's end, as an application leaves them; stock's parts ({@code Flux<Part>}),
 * which nothing deletes, are deleted by their handlers. The handlers that hold the parts
 * tell the test when they have them ({@link #held}). And a multipart response, for
 * {@code WebClient} to read.
 */
@RestController
@Configuration(proxyBeanMethods = false)
class MultipartEntryPoints {

	private static final Map<String, CompletableFuture<Void>> HELD = new ConcurrentHashMap<>();

	@PostMapping("/entry/get-multipart-data")
	Mono<List<String>> multipartData(ServerWebExchange exchange) {
		return exchange.getMultipartData().flatMap((parts) -> describe(all(parts)));
	}

	@PostMapping("/entry/request-part")
	Mono<List<String>> requestPart(@RequestPart("greeting") FormFieldPart greeting, @RequestPart("small") FilePart small,
			@RequestPart("json") Part json) {
		return describe(List.of(greeting, small, json));
	}

	@PostMapping("/entry/form-param")
	Mono<List<String>> formParam(@FormParam("greeting") String greeting, @FormParam("small") FilePart small) {
		return describe(List.of(small)).map((described) -> {
			List<String> answer = new ArrayList<>(described);
			answer.add("greeting=" + greeting);
			return answer;
		});
	}

	@PostMapping("/entry/request-body-map")
	Mono<List<String>> requestBodyMap(@RequestBody Mono<MultiValueMap<String, Part>> parts) {
		return parts.flatMap((map) -> describe(all(map)));
	}

	@PostMapping("/entry/request-body-parts")
	Mono<List<String>> requestBodyParts(@RequestBody Flux<Part> parts) {
		return parts.collectList().flatMap(MultipartEntryPoints::describeAndDelete);
	}

	@PostMapping("/entry/request-body-events")
	Mono<List<String>> requestBodyEvents(@RequestBody Flux<PartEvent> events) {
		return describeEvents(events);
	}

	@PostMapping("/entry/fail-after-parts")
	Mono<List<String>> failAfterParts(ServerWebExchange exchange) {
		return exchange.getMultipartData()
			.flatMap((parts) -> describe(all(parts)))
			.then(Mono.error(new IllegalStateException("Failed on purpose after reading the parts")));
	}

	/**
	 * Holds the parts a second before it answers: for a client that resets while it
	 * waits. Reactor Netty cancels the handling at the reset; a servlet container notices
	 * only when the answer is written.
	 */
	@PostMapping("/entry/hold-parts")
	Mono<List<String>> holdParts(ServerWebExchange exchange) {
		return hold(exchange, exchange.getMultipartData());
	}

	@PostMapping("/entry/hold-request-body-map")
	Mono<List<String>> holdRequestBodyMap(ServerWebExchange exchange,
			@RequestBody Mono<MultiValueMap<String, Part>> parts) {
		return hold(exchange, parts);
	}

	private static Mono<List<String>> hold(ServerWebExchange exchange, Mono<MultiValueMap<String, Part>> parts) {
		String fault = exchange.getRequest().getQueryParams().getFirst("fault");
		return parts.doOnNext((map) -> held(String.valueOf(fault)).complete(null))
			.delayElement(Duration.ofSeconds(1))
			.flatMap((map) -> describe(all(map)));
	}

	/** When the handler of the request marked with the given fault had its parts. */
	static CompletableFuture<Void> held(String fault) {
		return HELD.computeIfAbsent(fault, (key) -> new CompletableFuture<>());
	}

	@GetMapping("/entry/multipart-response")
	MultiValueMap<String, ?> multipartResponse() {
		MultipartBodyBuilder body = new MultipartBodyBuilder();
		body.part("greeting", "héllo wörld");
		body.part("count", "42");
		body.part("small", "line of a file\n".repeat(200).getBytes(StandardCharsets.UTF_8)).filename("small.txt");
		body.part("json", "{\"a\":1}", MediaType.APPLICATION_JSON);
		return body.build();
	}

	@Bean
	RouterFunction<ServerResponse> multipartEntryRoutes() {
		return RouterFunctions.route()
			.POST("/entry/extract-multipart-data", (request) -> request.body(BodyExtractors.toMultipartData())
				.flatMap((map) -> describe(all(map)))
				.flatMap((answer) -> ServerResponse.ok().bodyValue(answer)))
			.POST("/entry/server-request-multipart-data", (request) -> request.multipartData()
				.flatMap((map) -> describe(all(map)))
				.flatMap((answer) -> ServerResponse.ok().bodyValue(answer)))
			.POST("/entry/extract-parts", (request) -> request.body(BodyExtractors.toParts())
				.collectList()
				.flatMap(MultipartEntryPoints::describeAndDelete)
				.flatMap((answer) -> ServerResponse.ok().bodyValue(answer)))
			.POST("/entry/body-to-flux-part-events", (request) -> describeEvents(request.bodyToFlux(PartEvent.class))
				.flatMap((answer) -> ServerResponse.ok().bodyValue(answer)))
			.build();
	}

	static List<Part> all(MultiValueMap<String, Part> parts) {
		return parts.values().stream().flatMap(Collection::stream).toList();
	}

	/** Each part as {@code name|kind|size/crc32}, sorted. */
	static Mono<List<String>> describe(List<Part> parts) {
		return Flux.fromIterable(parts)
			.concatMap((part) -> Checksums.of(part.content()).map((checksum) -> part.name() + "|" + kind(part) + "|"
					+ checksum))
			.collectSortedList();
	}

	private static Mono<List<String>> describeAndDelete(List<Part> parts) {
		return describe(parts)
			.flatMap((described) -> Flux.fromIterable(parts).concatMap(Part::delete).then(Mono.just(described)));
	}

	private static String kind(Part part) {
		if (part instanceof FormFieldPart field) {
			return "field " + field.value();
		}
		return (part instanceof FilePart file) ? "file " + file.filename() : "part";
	}

	/** The events as the parts they make up, every buffer released as it comes. */
	private static Mono<List<String>> describeEvents(Flux<PartEvent> events) {
		return Mono.defer(() -> {
			List<String> parts = new ArrayList<>();
			CRC32 crc = new CRC32();
			long[] size = new long[1];
			return events.doOnNext((event) -> {
				DataBuffer content = event.content();
				try (DataBuffer.ByteBufferIterator views = content.readableByteBuffers()) {
					views.forEachRemaining((view) -> {
						size[0] += view.remaining();
						crc.update(view);
					});
				}
				finally {
					DataBufferUtils.release(content);
				}
				if (event.isLast()) {
					String kind = (event instanceof FormPartEvent form) ? "field " + form.value()
							: (event instanceof FilePartEvent file) ? "file " + file.filename() : "part";
					parts.add(event.name() + "|" + kind + "|" + size[0] + "/" + Long.toHexString(crc.getValue()));
					crc.reset();
					size[0] = 0;
				}
			}).then(Mono.fromSupplier(() -> {
				parts.sort(null);
				return parts;
			}));
		});
	}

}
