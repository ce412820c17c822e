package io.fastpath.json.write;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import io.fastpath.codec.WriteEvent;
import io.fastpath.codec.WriteListener;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.NoDroppedErrorsExtension;
import io.fastpath.test.TestSeed;
import io.netty.buffer.PooledByteBufAllocator;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.http.codec.json.JacksonJsonEncoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the batching encoder batches: what the source has ready goes out in one buffer, no
 * value waits for another, nothing is written ahead of demand beyond the cap, nothing is
 * emitted before the first signal of the source, a cancel at any point releases every
 * buffer and cancels the source, and a body paced by its transport's releases ends whole
 * however they race the values of a source on another thread.
 */
@ExtendWith({ TestSeed.class, NoDroppedErrorsExtension.class })
class ReadyBatchesTests {

	private static final ResolvableType INTEGER = ResolvableType.forClass(Integer.class);

	/** Bodies raced, each media type. */
	private static final int PACED_RACE_ROUNDS = 3000;

	private final LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();

	private final JacksonJsonEncoder stock = new JacksonJsonEncoder();

	/**
	 * The clock that the batching tells a slow step of a source by, in nanoseconds: it moves
	 * only when a test's source says it took time, so that a pause of this JVM (a collection,
	 * a busy machine) is not taken for a slow step, which would send a batch early.
	 */
	private final AtomicLong clock = new AtomicLong();

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "application/json", "application/x-ndjson" })
	void valuesThatTheSourceHasReadyGoOutInOneBuffer(String mediaType) {
		Flux<Integer> values = Flux.range(0, 1000);
		WrittenBody body = WrittenBody.collect(encoder(64 * 1024).encode(values,
				this.factory, INTEGER, MediaType.parseMediaType(mediaType), Map.of()));
		// A stream sends its first value ahead: the source's next poll might block
		assertThat(body.buffers()).isEqualTo(mediaType.endsWith("ndjson") ? 2 : 1);
		assertThat(body.error()).isNull();
		this.factory.assertNoLeaks();
	}

	@Test
	void aBatchIsEmittedOnceTheNextValueCouldTakeItPastTheCap() {
		// hide(): a source that is not fused, whose first batch is kept within the cap too
		List<Integer> sizes = batchSizes(Flux.range(0, 1000).hide(), 100);
		// 3891 bytes: 2890 digits, 999 commas and the brackets. The largest value with its
		// comma takes 4 bytes, and a batch keeps 2 bytes of room for one a little larger:
		// every batch but the last holds 95 to 100 bytes, never more (a batch past the cap
		// would have grown, copied whole into a larger buffer).
		assertThat(sizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(3891);
		assertThat(sizes.subList(0, sizes.size() - 1)).allSatisfy((size) -> assertThat(size).isBetween(95, 100));
		assertThat(sizes.get(sizes.size() - 1)).isBetween(1, 100);
	}

	@Test
	void theFirstBatchOfAJsonArrayResponseFromAFusedSourceHoldsUpToTwoCaps() {
		// Flux.range is fused: its first batch is kept within 200 bytes, the next within 100
		List<Integer> sizes = batchSizes(Flux.range(0, 1000), 100, MediaType.APPLICATION_JSON, new OneBatchBody());
		assertThat(sizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(3891);
		assertThat(sizes.get(0)).isBetween(195, 200);
		assertThat(sizes.subList(1, sizes.size() - 1)).allSatisfy((size) -> assertThat(size).isBetween(95, 100));
	}

	@Test
	void aValueADigitLongerThanThoseBeforeItNeverTakesABatchPastTheCap() {
		// 33 numbers of two digits fill the first batch (99 bytes), so the next is allocated
		// at the cap; in it, numbers of one digit, then of two, then one of three (4 bytes
		// with its comma) at every position: without room kept for it, the body that brings
		// it to a batch of 97 bytes takes that batch past the cap (its buffer grown, the
		// batch copied whole into it)
		for (int oneDigit = 0; oneDigit < 3; oneDigit++) {
			for (int before = 0; before < 40; before++) {
				List<Integer> values = new ArrayList<>(Collections.nCopies(33, 10));
				values.addAll(Collections.nCopies(oneDigit, 5));
				values.addAll(Collections.nCopies(before, 10));
				values.add(100);
				values.addAll(Collections.nCopies(40, 10));
				List<Integer> sizes = batchSizes(Flux.fromIterable(values).hide(), 100);
				assertThat(sizes.get(0)).isEqualTo(99);
				assertThat(sizes).as("%d one-digit and %d two-digit numbers before the longer one", oneDigit, before)
					.allSatisfy((size) -> assertThat(size).isLessThanOrEqualTo(100));
			}
		}
	}

	@Test
	void aJsonArrayResponseThatAFusedSourceGivesWithinTwoCapsGoesOutWholeInOneBuffer() {
		// 3891 bytes within 2 caps of 2000: one buffer, marked as the whole body; the same
		// values not fused: two
		OneBatchBody whole = new OneBatchBody();
		assertThat(batchSizes(Flux.range(0, 1000), 2000, MediaType.APPLICATION_JSON, whole)).containsExactly(3891);
		assertThat(whole.isOneBatch()).isTrue();
		OneBatchBody hidden = new OneBatchBody();
		assertThat(batchSizes(Flux.range(0, 1000).hide(), 2000, MediaType.APPLICATION_JSON, hidden)).hasSize(2);
		assertThat(hidden.isOneBatch()).isFalse();
	}

	@Test
	void aStreamOrABodyWithoutALengthFromAFusedSourceIsBatchedAtTheCap() {
		// Neither a stream nor a body that cannot get a length (no OneBatchBody: a request
		// body) waits for more than a cap of values; a stream sends its first value ahead
		assertThat(batchSizes(Flux.range(0, 1000), 1000, MediaType.APPLICATION_NDJSON, new OneBatchBody()))
			.hasSize(5)
			.first()
			.isEqualTo(2);
		assertThat(batchSizes(Flux.range(0, 1000), 1000, MediaType.APPLICATION_JSON, null)).hasSize(4);
	}

	private List<Integer> batchSizes(Flux<Integer> values, int cap) {
		return batchSizes(values, cap, MediaType.APPLICATION_JSON, null);
	}

	private List<Integer> batchSizes(Flux<Integer> values, int cap, MediaType mediaType,
			@Nullable OneBatchBody oneBatch) {
		List<Integer> sizes = new ArrayList<>();
		Map<String, Object> hints = (oneBatch != null) ? Map.of(OneBatchBody.HINT, oneBatch) : Map.of();
		WrittenBody body = WrittenBody.collect(encoder(cap)
			.encode(values, this.factory, INTEGER, mediaType, hints)
			.doOnNext((batch) -> sizes.add(batch.readableByteCount())));
		assertThat(body.error()).isNull();
		this.factory.assertNoLeaks();
		return sizes;
	}

	@Test
	void batchingResumesAfterAValueLargerThanTheCap() {
		// 20 numbers, a string of 300 characters, 60 numbers of 4 digits (5 bytes with the
		// comma): the batches after the string hold 94 to 100 bytes again, not one value
		List<Object> values = new ArrayList<>();
		IntStream.range(1000, 1020).forEach(values::add);
		values.add("x".repeat(300));
		IntStream.range(2000, 2060).forEach(values::add);
		List<String> batches = new ArrayList<>();
		WrittenBody body = WrittenBody.collect(encoder(100)
			.encode(Flux.fromIterable(values).hide(), this.factory, ResolvableType.forClass(Object.class),
					MediaType.APPLICATION_JSON, Map.of())
			.doOnNext((batch) -> batches.add(batch.toString(StandardCharsets.UTF_8))));
		assertThat(body.error()).isNull();
		int large = batches.indexOf(batches.stream().filter((batch) -> batch.contains("xxx")).findFirst().get());
		List<String> after = batches.subList(large + 1, batches.size() - 1);
		assertThat(after).hasSizeGreaterThanOrEqualTo(2)
			.allSatisfy((batch) -> assertThat(batch.length()).isBetween(94, 100));
		this.factory.assertNoLeaks();
	}

	@Test
	void aPacedBodyHoldsAtMostTwoCapsOfBatchesThatTheTransportHasNotReleased() {
		LeakTrackingDataBufferFactory netty = LeakTrackingDataBufferFactory.nettyPooled();
		AtomicInteger made = new AtomicInteger();
		Flux<Integer> values = Flux.range(1000, 1_000_000).doOnNext((value) -> made.incrementAndGet());
		HoldingTransport transport = new HoldingTransport(false);
		encoder(1000).encode(values, netty, INTEGER, MediaType.APPLICATION_NDJSON, Map.of())
			.contextWrite(SendPacing::paced)
			.subscribe(transport);
		for (int round = 0; round < 20; round++) {
			assertThat(transport.held().stream().mapToInt(DataBuffer::capacity).sum()).as("held at round %d", round)
				.isPositive()
				.isLessThanOrEqualTo(2 * 1000);
			// Numbers of 4 digits and a newline: 200 fill a cap; the written ones are held
			assertThat(made.get()).isLessThanOrEqualTo((round + 2) * 200 + 1);
			transport.releaseOldest();
		}
		transport.cancel();
		transport.releaseAll();
		netty.assertNoLeaks();
	}

	/**
	 * A source that hands values one at a time makes batches of many sizes, and sizes the
	 * next allocation by them, so what the unsent batches leave of the budget is any number
	 * of bytes. A batch allocated within that and then filled further, as the transport
	 * releases some, grows as its factory grows buffers (Netty's: to the next power of two,
	 * past a cap that is not one), which the budget must allow too; so must the first value
	 * of a batch allocated smaller than it. Each step counts every buffer allocated and not
	 * released, the batch being filled included.
	 */
	@ParameterizedTest(name = "cap {0}, values of {1} digits")
	@CsvSource({ "4096, 8", "3000, 8", "3000, 1100", "65000, 8", "65000, 1100" })
	void aPacedBatchNeverGrowsPastWhatTheUnsentBatchesLeaveOfTheBudget(int cap, int digits) {
		Random random = TestSeed.random("pacedGrowth" + cap + "/" + digits);
		var netty = (LeakTrackingDataBufferFactory.NettyPooled) LeakTrackingDataBufferFactory.nettyPooled();
		Sinks.Many<String> source = Sinks.many().unicast().onBackpressureBuffer();
		HoldingTransport transport = new HoldingTransport(true);
		encoder(cap).encode(source.asFlux().hide(), netty, ResolvableType.forClass(String.class),
				MediaType.APPLICATION_NDJSON, Map.of())
			.contextWrite(SendPacing::paced)
			.subscribe(transport);
		StringBuilder expected = new StringBuilder();
		String format = "%0" + digits + "d";
		int next = 0;
		int batchOfValues = Math.max(2, 2 * cap / (digits + 3));
		for (int step = 0; step < 3000; step++) {
			if (transport.held().isEmpty() || random.nextBoolean()) {
				for (int count = random.nextInt(1, batchOfValues); count > 0; count--) {
					String value = String.format(format, next++);
					expected.append('"').append(value).append("\"\n");
					source.tryEmitNext(value);
				}
			}
			else {
				for (int count = random.nextInt(1, transport.held().size() + 1); count > 0; count--) {
					transport.releaseOldest();
				}
			}
			assertThat(netty.capacityHeld()).as("bytes held after step %d", step).isLessThanOrEqualTo(2L * cap);
		}
		source.tryEmitComplete();
		while (!transport.isCompleted()) {
			assertThat(transport.held()).as("batches to release before the body ends").isNotEmpty();
			transport.releaseOldest();
		}
		transport.releaseAll();
		assertThat(String.join("", transport.received())).isEqualTo(expected.toString());
		netty.assertNoLeaks();
	}

	@Test
	void aPacedBodyFromASourceThatHandsValuesOneByOneSendsTogetherWhatArrivedWhileTheTransportWasBusy() {
		// A source on a thread of its own (a driver) hands values one at a time, each alone
		// in the queue; the transport holds the batch it was given until it has sent it
		LeakTrackingDataBufferFactory netty = LeakTrackingDataBufferFactory.nettyPooled();
		Sinks.Many<Integer> source = Sinks.many().unicast().onBackpressureBuffer();
		HoldingTransport transport = new HoldingTransport(false);
		encoder(64 * 1024).encode(source.asFlux().hide(), netty, INTEGER, MediaType.APPLICATION_NDJSON, Map.of())
			.contextWrite(SendPacing::paced)
			.subscribe(transport);
		source.tryEmitNext(1);
		assertThat(transport.received()).as("the first value, with nothing being sent").containsExactly("1\n");
		source.tryEmitNext(2);
		source.tryEmitNext(3);
		source.tryEmitNext(4);
		assertThat(transport.received()).as("values made while the first is being sent").containsExactly("1\n");
		transport.releaseOldest();
		assertThat(transport.received()).as("once it is sent").containsExactly("1\n", "2\n3\n4\n");
		transport.releaseOldest();
		source.tryEmitNext(5);
		assertThat(transport.received()).as("a value made with nothing being sent")
			.containsExactly("1\n", "2\n3\n4\n", "5\n");
		source.tryEmitComplete();
		assertThat(transport.isCompleted()).isTrue();
		transport.releaseAll();
		netty.assertNoLeaks();
	}

	/**
	 * A paced body whose values come from a thread of their own (a driver's) while its
	 * batches are released on the transport's (an event loop's), a few microseconds after
	 * each is taken: the release, the values and the demand race, in an order that each
	 * round's sizes and delays change. A wake-up lost among them leaves a body that never
	 * ends, with a batch waiting for a release already counted, or values for a drain that
	 * never comes. Every body must end, whole and in order, within the deadline.
	 */
	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "application/json", "application/x-ndjson" })
	void aPacedBodyFromAnotherThreadEndsWholeWhateverTheOrderOfReleasesValuesAndDemand(String mediaType)
			throws Exception {
		Random random = TestSeed.random("pacedRace" + mediaType);
		PooledByteBufAllocator allocator = new PooledByteBufAllocator(true);
		Scheduler driver = Schedulers.newSingle("driver");
		ExecutorService transportThread = Executors.newSingleThreadExecutor();
		try {
			for (int round = 0; round < PACED_RACE_ROUNDS; round++) {
				int count = 1 + random.nextInt(3000);
				int cap = 16 + random.nextInt(1024);
				int releaseDelayNanos = random.nextInt(20_000);
				Flux<Integer> values = Flux.range(0, count).publishOn(driver, 1 + random.nextInt(256));
				LeakTrackingDataBufferFactory netty = LeakTrackingDataBufferFactory.nettyPooled(allocator);
				SendingTransport transport = new SendingTransport(transportThread, releaseDelayNanos,
						random.nextBoolean(), random.nextBoolean() ? 1 : 64);
				encoder(cap).encode(values, netty, INTEGER, MediaType.parseMediaType(mediaType), Map.of())
					.contextWrite(SendPacing::paced)
					.subscribe(transport);
				String body = transport.body(Duration.ofSeconds(10),
						"round " + round + ": " + count + " values, cap " + cap + ", " + transport);
				assertThat(body).as("round %d", round).isEqualTo(expectedBody(count, mediaType));
				netty.assertNoLeaks();
			}
		}
		finally {
			driver.dispose();
			transportThread.shutdownNow();
		}
	}

	/** The body of the numbers from 0 to count, written out here, not by the encoder. */
	private static String expectedBody(int count, String mediaType) {
		StringBuilder body = new StringBuilder();
		boolean array = mediaType.equals("application/json");
		body.append(array ? "[" : "");
		for (int value = 0; value < count; value++) {
			body.append((array && value > 0) ? "," : "").append(value).append(array ? "" : "\n");
		}
		return body.append(array ? "]" : "").toString();
	}

	@Test
	void aBodyThatIsNotPacedIsLimitedByDemandAlone() {
		// Without the context of a paced body, every batch asked for is written
		LeakTrackingDataBufferFactory netty = LeakTrackingDataBufferFactory.nettyPooled();
		List<DataBuffer> batches = encoder(1000)
			.encode(Flux.range(1000, 1_000_000), netty, INTEGER, MediaType.APPLICATION_NDJSON, Map.of())
			.take(10, true)
			.collectList()
			.block(Duration.ofSeconds(10));
		assertThat(batches).hasSize(10);
		batches.forEach(DataBufferUtils::release);
		netty.assertNoLeaks();
	}

	@ParameterizedTest(name = "cap {0}")
	@ValueSource(ints = { 4, 1000 })
	void aBatchThatCannotBeFlushedIsReleasedAndItsErrorEndsTheBody(int cap) {
		// A writer that holds what it writes until the batch goes out, and then cannot put it
		// there: with cap 4 the first full batch fails, with cap 1000 the last
		AtomicBoolean writerReleased = new AtomicBoolean();
		BatchWriter<Integer> writer = new BatchWriter<>() {

			private int held;

			@Override
			public void write(Integer value, DataBuffer batch) {
				this.held++;
			}

			@Override
			public int size(DataBuffer batch) {
				return batch.readableByteCount() + this.held;
			}

			@Override
			public void flush(DataBuffer batch) {
				throw new IllegalStateException("no room");
			}

			@Override
			public DataBuffer complete(DataBuffer batch, DataBufferFactory bufferFactory) {
				return batch;
			}

			@Override
			public void release() {
				writerReleased.set(true);
			}

		};
		AtomicBoolean cancelled = new AtomicBoolean();
		Flux<Integer> values = Flux.range(0, 40).doOnCancel(() -> cancelled.set(true));
		StepVerifier.create(new ReadyBatches<>(values, this.factory, () -> writer, cap, WriteListener.NONE,
				WriteEvent.Kind.JSON_ARRAY))
			.verifyErrorMessage("no room");
		assertThat(writerReleased).isTrue();
		assertThat(cancelled.get()).isEqualTo(cap == 4);
		this.factory.assertNoLeaks();
	}

	@Test
	void noValueWaitsForAnother() {
		Sinks.Many<Integer> source = Sinks.many().unicast().onBackpressureBuffer();
		StepVerifier.create(encoder(64 * 1024).encode(source.asFlux(), this.factory,
				INTEGER, MediaType.APPLICATION_NDJSON, Map.of()).map(this::text))
			.then(() -> source.tryEmitNext(1))
			.expectNext("1\n")
			.then(() -> source.tryEmitNext(2))
			.expectNext("2\n")
			.then(() -> {
				source.tryEmitNext(3);
				source.tryEmitComplete();
			})
			.expectNext("3\n")
			.verifyComplete();
		this.factory.assertNoLeaks();
	}

	@ParameterizedTest(name = "{0}, fused {1}")
	@CsvSource({ "application/x-ndjson, true", "text/event-stream, true", "application/x-ndjson, false",
			"text/event-stream, false" })
	void theFirstValueOfAStreamGoesOutBeforeTheSourceMakesTheNext(String mediaType, boolean fused) {
		// The second value is made only once the first was received: a loop that held the
		// first until the next poll (or its request to a source that is not fused, which
		// emits within it) returned would wait for the latch's timeout, and the second value
		// would be made first
		CountDownLatch received = new CountDownLatch(1);
		List<String> events = new CopyOnWriteArrayList<>();
		Flux<Integer> made = Flux.range(1, 2).map((value) -> {
			if (value == 2) {
				await(received);
			}
			events.add("made " + value);
			return value;
		});
		Flux<Integer> values = fused ? made : made.hide();
		StepVerifier.create(encode(values, mediaType).doOnNext((batch) -> {
			events.add("received " + batch.toString(StandardCharsets.UTF_8).trim());
			received.countDown();
		}).map(this::text))
			.expectNextCount(2)
			.verifyComplete();
		assertThat(events).startsWith("made 1", "received " + firstEvent(mediaType), "made 2");
		this.factory.assertNoLeaks();
	}

	@ParameterizedTest(name = "{0}, fused {1}")
	@CsvSource({ "application/x-ndjson, true", "text/event-stream, true", "application/x-ndjson, false",
			"text/event-stream, false" })
	void aValueMadeAfterASlowStepGoesOutBeforeTheSourceMakesTheNext(String mediaType, boolean fused) {
		// The second value takes 20 ms to make, on the test's clock; the third is made only
		// once the second was received
		CountDownLatch received = new CountDownLatch(2);
		List<String> events = new CopyOnWriteArrayList<>();
		Flux<Integer> made = Flux.range(1, 3).map((value) -> {
			if (value == 2) {
				takes(Duration.ofMillis(20));
			}
			if (value == 3) {
				await(received);
			}
			events.add("made " + value);
			return value;
		});
		Flux<Integer> values = fused ? made : made.hide();
		StepVerifier.create(encode(values, mediaType).doOnNext((batch) -> {
			events.add("received");
			received.countDown();
		}).map(this::text))
			.expectNextCount(3)
			.verifyComplete();
		assertThat(events).containsExactly("made 1", "received", "made 2", "received", "made 3", "received");
		this.factory.assertNoLeaks();
	}

	@Test
	void aFusedJsonArrayIsPolledUntilItsBatchIsFull() {
		// An array is not flushed as it goes (stock's isn't either): its values are batched
		// across polls
		assertThat(batchSizes(Flux.range(1, 3).map((value) -> {
			if (value == 2) {
				takes(Duration.ofMillis(20));
			}
			return value;
		}), 1000)).containsExactly(7);
	}

	@Test
	void aFusedStreamTellsASlowStepOfItsSourceByOneReadOfTheClockAValue() {
		// A read of the clock costs as much as a part of a small value's write: a poll timed
		// on its own reads it twice, over 2000 times for these values
		AtomicLong reads = new AtomicLong();
		List<Integer> sizes = new ArrayList<>();
		BatchingJsonEncoder encoder = new BatchingJsonEncoder(this.stock, 1000, null, WriteListener.NONE, () -> {
			reads.incrementAndGet();
			return this.clock.get();
		});
		WrittenBody body = WrittenBody.collect(encoder
			.encode(Flux.range(0, 1000), this.factory, INTEGER, MediaType.APPLICATION_NDJSON, Map.of())
			.doOnNext((batch) -> sizes.add(batch.readableByteCount())));
		assertThat(body.error()).isNull();
		// A read after each of the 1001 polls (the last finds the end); one as the loop starts
		// or resumes, and one after each batch it emits
		assertThat(reads.get()).isBetween(1001L, 1001L + 2L * sizes.size() + 2);
		this.factory.assertNoLeaks();
	}

	@Test
	void aDownstreamSlowToTakeABatchIsNotTakenForASlowStepOfAFusedStream() {
		// Each batch takes the downstream 20 ms on the test's clock: counted to the next poll,
		// it would send every value after the first in a batch of its own
		List<Integer> sizes = new ArrayList<>();
		WrittenBody body = WrittenBody.collect(encoder(1000)
			.encode(Flux.range(0, 1000), this.factory, INTEGER, MediaType.APPLICATION_NDJSON, Map.of())
			.doOnNext((batch) -> {
				sizes.add(batch.readableByteCount());
				takes(Duration.ofMillis(20));
			}));
		assertThat(body.error()).isNull();
		// As from a downstream that takes no time: the first value ahead, then batches at the cap
		assertThat(sizes).hasSize(5).first().isEqualTo(2);
		assertThat(sizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(3890);
		this.factory.assertNoLeaks();
	}

	private Flux<DataBuffer> encode(Flux<Integer> values, String mediaType) {
		MediaType type = MediaType.parseMediaType(mediaType);
		if (type.isCompatibleWith(MediaType.TEXT_EVENT_STREAM)) {
			return new ReadyBatches<Object>(values, this.factory,
					() -> new ServerSentEventBatchWriter(this.stock, null, INTEGER, new MediaType(type, StandardCharsets.UTF_8),
							Map.of(), LogFactory.getLog(getClass())),
					64 * 1024, WriteListener.NONE, WriteEvent.Kind.SERVER_SENT_EVENTS, null, this.clock::get);
		}
		return encoder(64 * 1024).encode(values, this.factory, INTEGER, type, Map.of());
	}

	private static String firstEvent(String mediaType) {
		return mediaType.endsWith("ndjson") ? "1" : "data:1";
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(2, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** A step of a source that takes the given time, on the test's clock. */
	private void takes(Duration duration) {
		this.clock.addAndGet(duration.toNanos());
	}

	@Test
	void theArrayIsNotBegunBeforeTheFirstSignal() {
		Sinks.Many<Integer> source = Sinks.many().unicast().onBackpressureBuffer();
		StepVerifier.create(encoder(64 * 1024).encode(source.asFlux(), this.factory,
				INTEGER, MediaType.APPLICATION_JSON, Map.of()).map(this::text))
			.expectSubscription()
			.expectNoEvent(Duration.ofMillis(50))
			.then(() -> source.tryEmitError(new IllegalStateException("boom")))
			.verifyErrorMessage("boom");
		this.factory.assertNoLeaks();
	}

	@ParameterizedTest(name = "fused {0}")
	@ValueSource(booleans = { false, true })
	void anErrorWhileValuesWaitForDemandComesAfterThem(boolean fused) {
		// Fused, the error is thrown by a poll of the writer's; else it is an onError
		Flux<Integer> values = fused ? Flux.range(1, 4).map((value) -> {
			if (value == 4) {
				throw new IllegalStateException("boom");
			}
			return value;
		}) : Flux.range(1, 3).concatWith(Flux.error(new IllegalStateException("boom")));
		// A stream's first value goes ahead of the values after it
		StepVerifier.create(encoder(64 * 1024).encode(values, this.factory, INTEGER,
				MediaType.APPLICATION_NDJSON, Map.of()).map(this::text), 0)
			.expectSubscription()
			.expectNoEvent(Duration.ofMillis(20))
			.thenRequest(1)
			.expectNext("1\n")
			.expectNoEvent(Duration.ofMillis(20))
			.thenRequest(1)
			.expectNext("2\n3\n")
			.verifyErrorMessage("boom");
		this.factory.assertNoLeaks();
	}

	@Test
	void aValueWhoseWritingThrowsAnErrorIsCutFromTheBatchWithItsSeparator() {
		Flux<Object> values = Flux.just(1, 2, new ThrowsError(), 4);
		WrittenBody body = WrittenBody.collect(encoder(64 * 1024).encode(values,
				this.factory, ResolvableType.forClass(Object.class), MediaType.APPLICATION_JSON, Map.of()));
		// As stock: the values before, then the error, which Jackson lets out as it is
		assertThat(new String(body.bytes(), StandardCharsets.UTF_8)).isEqualTo("[1,2");
		assertThat(body.error()).isInstanceOf(AssertionError.class).hasMessage("cannot be written");
		this.factory.assertNoLeaks();
	}

	@ParameterizedTest(name = "fused {0}")
	@ValueSource(booleans = { false, true })
	void withoutDemandNoMoreIsTakenFromTheSourceThanTheFirstBatchAndThePrefetch(boolean fused) {
		AtomicInteger taken = new AtomicInteger();
		int cap = 1000;
		// Numbers of 4 digits and a newline: 200 fill the cap. A fused source is polled, with
		// no prefetch.
		Flux<Integer> range = Flux.range(1000, 9000);
		Flux<Integer> values = (fused ? range : range.hide()).doOnNext((value) -> taken.incrementAndGet());
		StepVerifier.create(encoder(cap).encode(values, this.factory, INTEGER,
				MediaType.APPLICATION_NDJSON, Map.of()), 0)
			.expectSubscription()
			.expectNoEvent(Duration.ofMillis(50))
			.thenCancel()
			.verify();
		int limit = fused ? cap / 5 + 1 : cap / 5 + 2 * ReadyBatches.PREFETCH;
		assertThat(taken.get()).isLessThanOrEqualTo(limit);
		this.factory.assertNoLeaks();
	}

	@ParameterizedTest(name = "cap {0}, values of {1} bytes: {2} ahead")
	@CsvSource({ "1000, 5, 200", "65536, 5, 256", "1000, 101, 32" })
	void aSourceThatIsNotFusedIsAskedAheadForTheValuesOneCapTakesWithinReactorsPrefetch(int cap, int valueBytes,
			int ahead) {
		// Values of 4 digits and a comma, or strings of 98 characters, quotes and a comma:
		// as many ahead as the cap takes of them, at least 32 (as before their size is
		// known) and at most Reactor's default prefetch, 256
		Flux<?> source = (valueBytes == 5) ? Flux.range(1000, 9000) : Flux.range(0, 2000).map((i) -> "x".repeat(98));
		List<Long> requests = new CopyOnWriteArrayList<>();
		AtomicLong delivered = new AtomicLong();
		List<Long> mostAhead = new CopyOnWriteArrayList<>();
		AtomicLong requested = new AtomicLong();
		Flux<?> values = source.hide().doOnNext((value) -> delivered.incrementAndGet()).doOnRequest((n) -> {
			requests.add(n);
			mostAhead.add(requested.addAndGet(n) - delivered.get());
		});
		encoder(cap).encode(values, this.factory, ResolvableType.forClass(Object.class), MediaType.APPLICATION_JSON,
				Map.of())
			.doOnNext(DataBufferUtils::release)
			.then()
			.block(Duration.ofSeconds(10));
		assertThat(requests).first().isEqualTo(32L);
		assertThat(mostAhead).allSatisfy((n) -> assertThat(n).isLessThanOrEqualTo(ahead));
		assertThat(Collections.max(mostAhead)).isGreaterThan(ahead * 3L / 4);
		this.factory.assertNoLeaks();
	}

	@Test
	void aCancelAtEveryPositionReleasesEveryBufferAndCancelsTheSource() {
		// Position 0, a cancel before the first batch: aCancelWhileABatchWaitsForDemandReleasesIt
		for (int position = 1; position <= 20; position++) {
			for (MediaType mediaType : List.of(MediaType.APPLICATION_JSON, MediaType.APPLICATION_NDJSON)) {
				AtomicBoolean cancelled = new AtomicBoolean();
				// More values than the prefetch: the source cannot have completed at the cancel
				Flux<Integer> values = Flux.range(0, 1000).doOnCancel(() -> cancelled.set(true));
				// A cap of 1 byte: one value a batch
				List<DataBuffer> received = encoder(1)
					.encode(values, this.factory, INTEGER, mediaType, Map.of())
					.take(position, true)
					.collectList()
					.block();
				received.forEach(DataBufferUtils::release);
				assertThat(received).hasSize(position);
				assertThat(cancelled).as("source cancelled at " + position).isTrue();
				this.factory.assertNoLeaks();
			}
		}
	}

	@Test
	void aCancelWhileABatchWaitsForDemandReleasesIt() {
		AtomicBoolean cancelled = new AtomicBoolean();
		Flux<Integer> values = Flux.range(0, 5).concatWith(Flux.never()).doOnCancel(() -> cancelled.set(true));
		StepVerifier.create(encoder(1024).encode(values, this.factory, INTEGER,
				MediaType.APPLICATION_JSON, Map.of()), 0)
			.expectSubscription()
			.expectNoEvent(Duration.ofMillis(20))
			.thenCancel()
			.verify();
		assertThat(cancelled).isTrue();
		this.factory.assertNoLeaks();
	}

	@Test
	void aCancelRacingValuesFromAnotherThreadReleasesEveryBuffer() {
		Random random = TestSeed.random("cancelRace");
		for (int round = 0; round < 200; round++) {
			int cancelAfter = random.nextInt(10);
			Flux<Integer> values = Flux.fromStream(IntStream.range(0, 200).boxed())
				.publishOn(Schedulers.parallel(), 1 + random.nextInt(8));
			BaseSubscriber<DataBuffer> subscriber = new BaseSubscriber<>() {

				private int received;

				@Override
				protected void hookOnSubscribe(Subscription subscription) {
					request(1);
				}

				@Override
				protected void hookOnNext(DataBuffer buffer) {
					DataBufferUtils.release(buffer);
					if (++this.received > cancelAfter) {
						cancel();
					}
					else {
						request(1);
					}
				}

			};
			encoder(1 + random.nextInt(64))
				.encode(values, this.factory, INTEGER, MediaType.APPLICATION_JSON, Map.of())
				.subscribe(subscriber);
			// Every body ends, by its cancel or by its end
			Flux.interval(Duration.ofMillis(1)).takeUntil((tick) -> subscriber.isDisposed()).blockLast();
		}
		// The last buffers may still be released by a drain loop that is running
		Flux.interval(Duration.ofMillis(10)).take(5).blockLast();
		this.factory.assertNoLeaks();
	}

	/**
	 * A transport that asks for 128 batches ahead, as Reactor Netty's send does, and holds
	 * each batch it takes until the test releases it, as one does until the batch is sent;
	 * when told, it asks for one more with each batch it takes, so that it never runs out
	 * of demand and only the budget holds the body back.
	 */
	private static final class HoldingTransport extends BaseSubscriber<DataBuffer> {

		private final boolean asksForEachBatch;

		private final List<DataBuffer> held = new ArrayList<>();

		private final List<String> received = new ArrayList<>();

		private volatile boolean completed;

		HoldingTransport(boolean asksForEachBatch) {
			this.asksForEachBatch = asksForEachBatch;
		}

		@Override
		protected void hookOnSubscribe(Subscription subscription) {
			request(128);
		}

		@Override
		protected void hookOnNext(DataBuffer batch) {
			this.received.add(batch.toString(StandardCharsets.UTF_8));
			this.held.add(batch);
			if (this.asksForEachBatch) {
				request(1);
			}
		}

		@Override
		protected void hookOnComplete() {
			this.completed = true;
		}

		/** The batches taken and not yet released, oldest first. */
		List<DataBuffer> held() {
			return this.held;
		}

		/** The text of every batch taken, in order. */
		List<String> received() {
			return this.received;
		}

		boolean isCompleted() {
			return this.completed;
		}

		void releaseOldest() {
			DataBufferUtils.release(this.held.remove(0));
		}

		void releaseAll() {
			this.held.forEach(DataBufferUtils::release);
			this.held.clear();
		}

	}

	/**
	 * A transport in the manner of Reactor Netty's send: it asks for 128 batches ahead
	 * (first for one, should it stand for Spring's write barrier, which takes the first
	 * batch before the transport asks for more), sends each on a thread of its own,
	 * releases it once sent (after the given delay) and asks for as many as it released,
	 * each time or in refills, as Reactor Netty does once its writes complete.
	 */
	private static final class SendingTransport extends BaseSubscriber<DataBuffer> {

		private static final int AHEAD = 128;

		private final ExecutorService thread;

		private final long releaseDelayNanos;

		private final boolean firstAlone;

		private final int refill;

		private final StringBuffer body = new StringBuffer();

		private final CompletableFuture<String> ended = new CompletableFuture<>();

		/** Batches released since the transport last asked for more; on its thread only. */
		private int released;

		private boolean first = true;

		SendingTransport(ExecutorService thread, long releaseDelayNanos, boolean firstAlone, int refill) {
			this.thread = thread;
			this.releaseDelayNanos = releaseDelayNanos;
			this.firstAlone = firstAlone;
			this.refill = refill;
		}

		@Override
		protected void hookOnSubscribe(Subscription subscription) {
			request(this.firstAlone ? 1 : AHEAD);
		}

		@Override
		protected void hookOnNext(DataBuffer batch) {
			if (this.first) {
				this.first = false;
				if (this.firstAlone) {
					request(AHEAD - 1);
				}
			}
			this.thread.execute(() -> {
				this.body.append(batch.toString(StandardCharsets.UTF_8));
				long sentAt = System.nanoTime() + this.releaseDelayNanos;
				while (System.nanoTime() < sentAt) {
					Thread.onSpinWait();
				}
				DataBufferUtils.release(batch);
				if (++this.released == this.refill) {
					this.released = 0;
					request(this.refill);
				}
			});
		}

		@Override
		protected void hookOnComplete() {
			// Sent after the batches before it, on the transport's thread
			this.thread.execute(() -> this.ended.complete(this.body.toString()));
		}

		@Override
		protected void hookOnError(Throwable error) {
			this.ended.completeExceptionally(error);
		}

		String body(Duration timeout, String description) throws Exception {
			try {
				return this.ended.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (TimeoutException ex) {
				throw new AssertionError("The body did not end within " + timeout + " (" + description + "), "
						+ this.body.length() + " characters sent", ex);
			}
		}

		@Override
		public String toString() {
			return "release after " + this.releaseDelayNanos + " ns, " + (this.firstAlone ? "first batch alone, " : "")
					+ "refill " + this.refill;
		}

	}

	private BatchingJsonEncoder encoder(int cap) {
		return new BatchingJsonEncoder(this.stock, cap, null, WriteListener.NONE, this.clock::get);
	}

	private String text(DataBuffer buffer) {
		String text = buffer.toString(StandardCharsets.UTF_8);
		DataBufferUtils.release(buffer);
		return text;
	}

	/** A value whose serialization fails half-way with an {@code Error}. */
	static final class ThrowsError {

		public String getFirst() {
			return "written";
		}

		public String getSecond() {
			throw new AssertionError("cannot be written");
		}

	}

}
