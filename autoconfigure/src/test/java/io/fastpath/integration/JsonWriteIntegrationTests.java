package io.fastpath.integration;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import io.fastpath.integration.FastpathTestApplication.Person;
import io.fastpath.integration.FastpathTestApplication.WriteController;
import io.fastpath.integration.FastpathTestApplication.WriteHandshakes;
import io.fastpath.json.write.JsonBatchEncoding;
import io.fastpath.test.CapturedLogs;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webflux.autoconfigure.error.AbstractErrorWebExceptionHandler;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.ServerSentEvent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * {@code Flux} responses written in batches over real HTTP: read back, they are the values
 * written, as a JSON array, NDJSON and server-sent events; a {@code Flux} that fails
 * before its first value is an ordinary error response; and a source that emits one value
 * and waits until the client has received it completes: a writer that held the value for
 * another would never let the client see it (the read times out and fails the test). A
 * {@code Flux} request body sent by Boot's {@code WebClient}, in batches, is read as sent
 * (on Jetty, retried when Jetty fails stock's read of it with its read race, see
 * {@code isJettysReadRace}).
 * A JSON array that went out whole in one batch has a {@code Content-Length}; one of
 * several batches is chunked.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
abstract class JsonWriteIntegrationTests extends RealServerTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private static final int MAX_ATTEMPTS = 10;

	@Autowired
	private WriteHandshakes handshakes;

	@Autowired
	private HandlingFailures failures;

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "application/json", "application/x-ndjson", "text/event-stream" })
	void aFluxOfManyValuesIsReadBackAsTheValuesWritten(String mediaType) {
		List<Person> people = this.client.get()
			.uri("/write/people?count=1000")
			.accept(MediaType.parseMediaType(mediaType))
			.retrieve()
			.bodyToFlux(Person.class)
			.collectList()
			.block(TIMEOUT);
		assertThat(people).hasSize(1000).element(999).isEqualTo(WriteController.person(999));
		assertThat(people).containsExactlyElementsOf(Flux.range(0, 1000).map(WriteController::person).toIterable());
	}

	@ParameterizedTest(name = "{0} people")
	@ValueSource(ints = { 0, 3, 1000 })
	void aJsonArrayThatGoesOutInOneBatchIsAnsweredWithItsLength(int count) {
		// 1000 people take more than a batch, but a Flux.range is fused: its first batch
		// holds two, and the whole body
		ResponseEntity<byte[]> response = this.client.get()
			.uri("/write/people?count=" + count)
			.accept(MediaType.APPLICATION_JSON)
			.exchangeToMono((answer) -> answer.toEntity(byte[].class))
			.block(TIMEOUT);
		byte[] body = (response.getBody() != null) ? response.getBody() : new byte[0];
		assertThat(body).asString(StandardCharsets.UTF_8).startsWith("[").endsWith("]");
		assertThat(response.getHeaders().getContentLength()).isEqualTo(body.length);
		assertThat(response.getHeaders().getFirst(HttpHeaders.TRANSFER_ENCODING)).isNull();
	}

	@Test
	void aJsonArrayOfSeveralBatchesIsChunked() {
		// More than two batches: read as buffers, counted, past the client's buffering limit
		ResponseEntity<Integer> response = this.client.get()
			.uri("/write/people?count=5000")
			.accept(MediaType.APPLICATION_JSON)
			.exchangeToMono((answer) -> answer.bodyToFlux(DataBuffer.class).map((buffer) -> {
				int size = buffer.readableByteCount();
				DataBufferUtils.release(buffer);
				return size;
			})
				.reduce(0, Integer::sum)
				.map((size) -> ResponseEntity.ok().headers(answer.headers().asHttpHeaders()).body(size)))
			.block(TIMEOUT);
		assertThat(response.getBody()).isGreaterThan(4 * JsonBatchEncoding.DEFAULT_CAP);
		assertThat(response.getHeaders().getContentLength()).isEqualTo(-1);
	}

	@ParameterizedTest(name = "{0} people")
	@ValueSource(ints = { 0, 1, 10 })
	void eventsAreReadBackWithTheirFields(int count) {
		List<ServerSentEvent<Person>> events = this.client.get()
			.uri("/write/events?count=" + count)
			.accept(MediaType.TEXT_EVENT_STREAM)
			.retrieve()
			.bodyToFlux(new ParameterizedTypeReference<ServerSentEvent<Person>>() {
			})
			.collectList()
			.block(TIMEOUT);
		assertThat(events).hasSize(count);
		for (int i = 0; i < count; i++) {
			assertThat(events.get(i).id()).isEqualTo(Integer.toString(i));
			assertThat(events.get(i).event()).isEqualTo("person");
			assertThat(events.get(i).data()).isEqualTo(WriteController.person(i));
		}
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "application/json", "application/x-ndjson", "text/event-stream" })
	void aFluxThatFailsBeforeItsFirstValueIsAnErrorResponse(String mediaType) {
		try (CapturedLogs errorLog = CapturedLogs.of(AbstractErrorWebExceptionHandler.class)) {
			ResponseEntity<String> response = this.client.get()
				.uri("/write/failing")
				.accept(MediaType.parseMediaType(mediaType))
				.exchangeToMono((answer) -> answer.toEntity(String.class))
				.block(TIMEOUT);
			assertThat(response.getStatusCode()).isEqualTo(HttpStatus.INTERNAL_SERVER_ERROR);
			// Boot's error handler logs the source's failure, before it answers
			assertThat(errorLog.events()).singleElement().satisfies((event) -> {
				assertThat(event.getFormattedMessage()).contains("500 Server Error for HTTP GET \"/write/failing\"");
				assertThat(event.getThrowableProxy().getMessage()).isEqualTo("no people today");
			});
		}
	}

	@Test
	void aFluxRequestBodySentWithBootsWebClientIsReadAsSent() {
		Optional<Long> count = Optional.empty();
		int failed = 0;
		// Boot's error handler logs a retried attempt's failure as a 500, before it answers
		try (CapturedLogs errorLog = CapturedLogs.of(AbstractErrorWebExceptionHandler.class)) {
			for (int attempt = 1; count.isEmpty(); attempt++) {
				String trace = UUID.randomUUID().toString();
				count = this.client.post()
					.uri("/json/people/count?trace=" + trace)
					.contentType(MediaType.APPLICATION_JSON)
					.body(Flux.range(0, 1000).map(WriteController::person), Person.class)
					.exchangeToMono((answer) -> answer.statusCode().is2xxSuccessful()
							? answer.bodyToMono(Long.class).map(Optional::of)
							: answer.releaseBody().thenReturn(Optional.<Long>empty()))
					.block(TIMEOUT);
				if (count.isEmpty()) {
					failed++;
					Throwable failure = this.failures.failureOf(trace);
					assertThat(attempt < MAX_ATTEMPTS && isJettysReadRace(failure))
						.as("attempt %d failed on the server with %s", attempt, failure)
						.isTrue();
				}
			}
			assertThat(errorLog.events()).hasSize(failed).allSatisfy((event) -> {
				assertThat(event.getFormattedMessage()).contains("500 Server Error for HTTP POST \"/json/people/count");
				assertThat(event.getThrowableProxy().getClassName()).isEqualTo(IllegalStateException.class.getName());
			});
		}
		assertThat(count).contains(1000L);
	}

	/**
	 * Whether the server failed with Jetty 12.1's read race: when the first segment of a
	 * chunked body holds a chunk header and no data, stock Spring's first
	 * {@code isReady()} finds no content while Jetty's input state is still {@code READY},
	 * and Jetty throws from {@code ServletChannelState.onReadUnready}. Stock's
	 * {@code WebClient} sending the same JSON as 32 KB or 64 KB {@code DataBuffer}s to a
	 * server without Fastpath gets it too (16 and 6 of 300 requests, docs/testing.md);
	 * Netty writes a chunk header alone when its data is larger than the gathering-write
	 * limit (32 KB on a new loopback connection). Only that failure is retried, on Jetty.
	 */
	private boolean isJettysReadRace(@Nullable Throwable failure) {
		if (!"Jetty".equals(server()) || !(failure instanceof IllegalStateException)
				|| failure.getStackTrace().length == 0) {
			return false;
		}
		StackTraceElement thrower = failure.getStackTrace()[0];
		return thrower.getClassName().equals("org.eclipse.jetty.ee11.servlet.ServletChannelState")
				&& thrower.getMethodName().equals("onReadUnready");
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "application/json", "application/x-ndjson", "text/event-stream" })
	void aValueIsSentWithoutWaitingForTheNext(String mediaType) {
		// Tomcat keeps what is written in its response buffer (8 KB) until it is flushed,
		// and Spring flushes only streaming types: stock holds the first value of a JSON
		// array there too (checked with fastpath.json.write.enabled=false).
		assumeFalse("Tomcat".equals(server()) && mediaType.equals("application/json"),
				"Tomcat holds an unflushed JSON array response, stock's too");
		String id = UUID.randomUUID().toString();
		List<Person> people = this.client.get()
			.uri("/write/handshake?id=" + id)
			.accept(MediaType.parseMediaType(mediaType))
			.retrieve()
			.bodyToFlux(Person.class)
			.doOnNext((person) -> this.handshakes.receive(id))
			.collectList()
			.block(TIMEOUT);
		assertThat(people).containsExactly(WriteController.person(0), WriteController.person(1));
	}

}
