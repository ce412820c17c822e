package io.fastpath.json.write;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;

import io.fastpath.codec.WriteEvent;
import io.fastpath.codec.WriteEvent.Kind;
import io.fastpath.codec.WriteEvent.Outcome;
import io.fastpath.codec.WriteListener;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.TestSeed;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerSentEventHttpMessageWriter;
import org.springframework.http.codec.json.JacksonJsonEncoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests that the writers {@link JsonBatchEncoding} puts in place tell their
 * {@link WriteListener} of each body once it has ended, with what went out. The expected
 * event is computed from the body the writer emitted, read independently (its buffers
 * counted, their bytes summed) and from the values of the source; each body is also
 * compared with the stock writer's, so that an event cannot be right while the body is
 * wrong.
 */
@ExtendWith(TestSeed.class)
class JsonBatchEncodingWriteEventsTests {

	private static final ResolvableType INTEGER = ResolvableType.forClass(Integer.class);

	private static final ResolvableType STRING = ResolvableType.forClass(String.class);

	private static final int[] CAPS = { 1, 40, 300, JsonBatchEncoding.DEFAULT_CAP };

	private final LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();

	private final JacksonJsonEncoder encoder = new JacksonJsonEncoder();

	private final List<WriteEvent> events = new CopyOnWriteArrayList<>();

	@AfterEach
	void everyBufferIsReleased() {
		this.factory.assertNoLeaks();
	}

	@Test
	void randomBodiesAreToldWithTheValuesBatchesAndBytesThatWentOut() {
		Random random = TestSeed.random("randomBodies");
		for (int round = 0; round < 30; round++) {
			int cap = CAPS[random.nextInt(CAPS.length)];
			List<String> values = randomStrings(random);
			for (MediaType mediaType : List.of(MediaType.APPLICATION_JSON, MediaType.APPLICATION_NDJSON,
					MediaType.TEXT_EVENT_STREAM)) {
				this.events.clear();
				boolean events = mediaType.equals(MediaType.TEXT_EVENT_STREAM);
				WrittenBody body = write(batching(cap, events), Flux.fromIterable(values), STRING, mediaType);
				WrittenBody stock = write(stock(events), Flux.fromIterable(values), STRING, mediaType);
				String description = round + " " + mediaType + " cap " + cap + ", " + values.size() + " values";
				assertThat(body.bytes()).as(description).isEqualTo(stock.bytes());
				assertThat(this.events).as(description)
					.containsExactly(new WriteEvent(kind(mediaType), Outcome.COMPLETE, values.size(), body.buffers(),
							body.bytes().length));
			}
		}
	}

	@Test
	void theEndOfAnEmptyArrayGoesOutAsABatchWithNoValue() {
		WrittenBody body = write(batching(1024, false), Flux.empty(), INTEGER, MediaType.APPLICATION_JSON);
		assertThat(new String(body.bytes(), StandardCharsets.UTF_8)).isEqualTo("[]");
		assertThat(this.events).containsExactly(new WriteEvent(Kind.JSON_ARRAY, Outcome.COMPLETE, 0, 1, 2));
	}

	@Test
	void anEmptyStreamHasNoBatch() {
		WrittenBody body = write(batching(1024, false), Flux.empty(), INTEGER, MediaType.APPLICATION_NDJSON);
		assertThat(body.bytes()).isEmpty();
		assertThat(this.events).containsExactly(new WriteEvent(Kind.JSON_STREAM, Outcome.COMPLETE, 0, 0, 0));
	}

	@Test
	void anErrorOfTheSourceIsToldWithTheValuesThatWentOutBeforeIt() {
		for (boolean sse : new boolean[] { false, true }) {
			this.events.clear();
			MediaType mediaType = sse ? MediaType.TEXT_EVENT_STREAM : MediaType.APPLICATION_JSON;
			Flux<Integer> values = Flux.range(0, 7).concatWith(Flux.error(new IllegalStateException("boom")));
			WrittenBody body = write(batching(10, sse), values, INTEGER, mediaType);
			assertThat(body.error()).hasMessage("boom");
			assertThat(body.bytes()).isEqualTo(write(stock(sse), values, INTEGER, mediaType).bytes());
			assertThat(this.events)
				.containsExactly(new WriteEvent(kind(mediaType), Outcome.ERROR, 7, body.buffers(), body.bytes().length));
		}
	}

	@Test
	void aValueThatCannotBeWrittenIsToldAsAnErrorAfterTheValuesBeforeIt() {
		Flux<Object> values = Flux.just(1, 2, new ReadyBatchesTests.ThrowsError(), 4);
		WrittenBody body = write(batching(1024, false), values, ResolvableType.forClass(Object.class),
				MediaType.APPLICATION_JSON);
		assertThat(new String(body.bytes(), StandardCharsets.UTF_8)).isEqualTo("[1,2");
		assertThat(body.error()).hasMessage("cannot be written");
		assertThat(this.events).containsExactly(new WriteEvent(Kind.JSON_ARRAY, Outcome.ERROR, 2, 1, 4));
	}

	@Test
	void aCancelIsToldWithTheBatchesReceivedBeforeIt() {
		for (int position = 1; position <= 10; position++) {
			this.events.clear();
			// A cap of 1 byte: one value a batch
			List<DataBuffer> received = jsonEncoder(1)
				.encode(Flux.range(0, 1000), this.factory, INTEGER, MediaType.APPLICATION_NDJSON, Map.of())
				.take(position, true)
				.collectList()
				.block();
			int bytes = received.stream().mapToInt(DataBuffer::readableByteCount).sum();
			received.forEach(DataBufferUtils::release);
			assertThat(this.events).as("cancel at " + position)
				.containsExactly(new WriteEvent(Kind.JSON_STREAM, Outcome.CANCEL, position, position, bytes));
		}
	}

	@Test
	void aBatchReleasedUnsentOnCancelIsNotCounted() {
		Flux<Integer> values = Flux.range(0, 5).concatWith(Flux.never());
		StepVerifier
			.create(jsonEncoder(1024).encode(values, this.factory, INTEGER, MediaType.APPLICATION_JSON, Map.of()), 0)
			.expectSubscription()
			.expectNoEvent(Duration.ofMillis(20))
			.thenCancel()
			.verify();
		assertThat(this.events).containsExactly(new WriteEvent(Kind.JSON_ARRAY, Outcome.CANCEL, 0, 0, 0));
	}

	@Test
	void theListenerIsToldWhenABodyEndsNotWhenItIsAssembledAndOncePerSubscription() {
		Flux<DataBuffer> body = jsonEncoder(1024).encode(Flux.range(0, 3), this.factory, INTEGER,
				MediaType.APPLICATION_JSON, Map.of());
		assertThat(this.events).isEmpty();
		WrittenBody first = WrittenBody.collect(body);
		WrittenBody second = WrittenBody.collect(body);
		assertThat(first.bytes()).isEqualTo(second.bytes()).asString(StandardCharsets.UTF_8).isEqualTo("[0,1,2]");
		WriteEvent expected = new WriteEvent(Kind.JSON_ARRAY, Outcome.COMPLETE, 3, 1, 7);
		assertThat(this.events).containsExactly(expected, expected);
	}

	@Test
	void aBodyWhoseWriterCannotBeCreatedIsToldAsAnErrorWithNothingWritten() {
		// Per-type mappers with none for the media type: the stock encoder fails at
		// subscription too.
		this.encoder.registerMappersForType(Integer.class,
				(mappers) -> mappers.put(MediaType.parseMediaType("application/vnd.other+json"), JsonMapper.shared()));
		WrittenBody body = WrittenBody
			.collect(jsonEncoder(1024).encode(Flux.range(0, 3), this.factory, INTEGER, MediaType.APPLICATION_JSON,
					Map.of()));
		assertThat(body.error()).isInstanceOf(IllegalStateException.class);
		assertThat(body.buffers()).isZero();
		assertThat(this.events).containsExactly(new WriteEvent(Kind.JSON_ARRAY, Outcome.ERROR, 0, 0, 0));
	}

	@Test
	void aMonoIsWrittenByStockAndNotTold() {
		WrittenBody body = write(batching(1024, false), Mono.just(1), INTEGER, MediaType.APPLICATION_JSON);
		assertThat(new String(body.bytes(), StandardCharsets.UTF_8)).isEqualTo("1");
		assertThat(this.events).isEmpty();
	}

	@Test
	void aListenerThatThrowsDoesNotChangeTheBodyAndItsErrorIsDropped() {
		List<Throwable> dropped = new CopyOnWriteArrayList<>();
		Hooks.onErrorDropped(dropped::add);
		try {
			IllegalStateException failure = new IllegalStateException("listener failed");
			HttpMessageWriter<?> writer = new JsonBatchEncoding(1024, (event) -> {
				throw failure;
			}).decorate(List.of(new EncoderHttpMessageWriter<>(this.encoder))).get(0);
			WrittenBody body = write(writer, Flux.range(0, 3), INTEGER, MediaType.APPLICATION_JSON);
			assertThat(body.error()).isNull();
			assertThat(new String(body.bytes(), StandardCharsets.UTF_8)).isEqualTo("[0,1,2]");
			assertThat(dropped).containsExactly(failure);
		}
		finally {
			Hooks.resetOnErrorDropped();
		}
	}

	private WrittenBody write(HttpMessageWriter<?> writer, Publisher<?> values,
			ResolvableType type, MediaType mediaType) {
		return WrittenBody.write(writer, values, type, mediaType, this.factory, Map.of());
	}

	/** The writer that {@link JsonBatchEncoding} puts in place of the stock one. */
	private HttpMessageWriter<?> batching(int cap, boolean sse) {
		HttpMessageWriter<?> stock = stock(sse);
		HttpMessageWriter<?> batching = new JsonBatchEncoding(cap, this.events::add).decorate(List.of(stock)).get(0);
		assertThat(batching).as("replaced").isNotSameAs(stock);
		return batching;
	}

	private HttpMessageWriter<?> stock(boolean sse) {
		return sse ? new ServerSentEventHttpMessageWriter(this.encoder) : new EncoderHttpMessageWriter<>(this.encoder);
	}

	private BatchingJsonEncoder jsonEncoder(int cap) {
		return (BatchingJsonEncoder) ((EncoderHttpMessageWriter<?>) batching(cap, false)).getEncoder();
	}

	private static Kind kind(MediaType mediaType) {
		if (mediaType.equals(MediaType.TEXT_EVENT_STREAM)) {
			return Kind.SERVER_SENT_EVENTS;
		}
		return mediaType.equals(MediaType.APPLICATION_NDJSON) ? Kind.JSON_STREAM : Kind.JSON_ARRAY;
	}

	/** None, one or many strings of 0 to 40 characters, some of them escaped or non-ASCII. */
	private static List<String> randomStrings(Random random) {
		int count = switch (random.nextInt(4)) {
			case 0 -> 0;
			case 1 -> 1;
			default -> random.nextInt(500);
		};
		List<String> strings = new ArrayList<>(count);
		String alphabet = "abcXYZ019 \"\\\n\té€😀";
		for (int i = 0; i < count; i++) {
			StringBuilder string = new StringBuilder();
			int length = random.nextInt(41);
			for (int j = 0; j < length; j++) {
				string.appendCodePoint(alphabet.codePointAt(alphabet.offsetByCodePoints(0,
						random.nextInt(alphabet.codePointCount(0, alphabet.length())))));
			}
			strings.add(string.toString());
		}
		return strings;
	}

}
