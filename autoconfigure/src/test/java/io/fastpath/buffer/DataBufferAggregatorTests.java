package io.fastpath.buffer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.TestSeed;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.publisher.TestPublisher;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.NettyDataBuffer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DataBufferAggregator}, on heap and Netty pooled buffers, with every
 * buffer accounted for after each test.
 */
class DataBufferAggregatorTests {

	private LeakTrackingDataBufferFactory factory;

	static Stream<LeakTrackingDataBufferFactory> factories() {
		return Stream.of(LeakTrackingDataBufferFactory.heap(), LeakTrackingDataBufferFactory.nettyPooled());
	}

	@BeforeEach
	void clearFactory() {
		this.factory = null;
	}

	@AfterEach
	void everyBufferIsReleased() {
		if (this.factory != null) {
			this.factory.assertNoLeaks();
		}
	}

	private LeakTrackingDataBufferFactory use(LeakTrackingDataBufferFactory factory) {
		this.factory = factory;
		return factory;
	}

	@ParameterizedTest
	@MethodSource("factories")
	void emptyBodyGivesEmptyMono(LeakTrackingDataBufferFactory factory) {
		use(factory);
		StepVerifier.create(DataBufferAggregator.aggregate(Flux.empty(), 100, -1)).verifyComplete();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void singleBufferIsEmittedAsItIs(LeakTrackingDataBufferFactory factory) {
		use(factory);
		DataBuffer only = buffer("hello");
		StepVerifier.create(DataBufferAggregator.aggregate(Flux.just(only), 100, 5))
			.assertNext((joined) -> {
				assertThat(joined).isSameAs(only);
				DataBufferUtils.release(joined);
			})
			.verifyComplete();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void singleEmptyBufferIsEmittedLikeStock(LeakTrackingDataBufferFactory factory) {
		use(factory);
		StepVerifier.create(DataBufferAggregator.aggregate(Flux.just(buffer("")), 100, -1))
			.assertNext((joined) -> assertThat(release(joined)).isEmpty())
			.verifyComplete();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void twoBuffersAreJoinedIntoOneBufferOfTheirFactory(LeakTrackingDataBufferFactory factory) {
		use(factory);
		StepVerifier.create(DataBufferAggregator.aggregate(Flux.just(buffer("foo"), buffer("bar")), 100, -1))
			.assertNext((joined) -> {
				assertThat(joined.factory()).isSameAs(factory);
				assertThat(release(joined)).isEqualTo("foobar");
			})
			.verifyComplete();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void manyBuffersAreJoinedInOrder(LeakTrackingDataBufferFactory factory) {
		use(factory);
		List<String> parts = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			parts.add("part-" + i + ";");
		}
		Flux<DataBuffer> body = Flux.fromIterable(parts).map(this::buffer);
		StepVerifier.create(DataBufferAggregator.aggregate(body, -1, -1))
			.assertNext((joined) -> assertThat(release(joined)).isEqualTo(String.join("", parts)))
			.verifyComplete();
	}

	@Test
	void heapBuffersAreCopiedOnceIntoABufferSizedFromExpectedLength() {
		use(LeakTrackingDataBufferFactory.heap());
		Flux<DataBuffer> body = Flux.just(buffer("a".repeat(10)), buffer("b".repeat(10)), buffer("c".repeat(980)));
		StepVerifier.create(DataBufferAggregator.aggregate(body, 10_000, 1000))
			.assertNext((joined) -> {
				assertThat(joined.capacity()).isEqualTo(1000);
				assertThat(joined.readableByteCount()).isEqualTo(1000);
				try (DataBuffer.ByteBufferIterator readable = joined.readableByteBuffers()) {
					assertThat(readable.next().remaining()).as("contiguous").isEqualTo(1000);
				}
				DataBufferUtils.release(joined);
			})
			.verifyComplete();
	}

	@Test
	void allocationFailureWhileJoiningReleasesEveryBuffer() {
		LeakTrackingDataBufferFactory.Heap heap = (LeakTrackingDataBufferFactory.Heap) use(
				LeakTrackingDataBufferFactory.heap());
		List<DataBuffer> body = List.of(buffer("foo"), buffer("bar"), buffer("baz"));
		heap.failAllocations();
		Flux<DataBuffer> source = Flux.fromIterable(body).doOnDiscard(DataBuffer.class, DataBufferUtils::release);
		StepVerifier.create(DataBufferAggregator.aggregate(source, 100, -1))
			.expectErrorMessage("Simulated: no memory for 12 bytes")
			.verify();
	}

	@Test
	void nettyBuffersAreGatheredWithoutCopying() {
		use(LeakTrackingDataBufferFactory.nettyPooled());
		DataBuffer first = buffer("foo");
		DataBuffer second = buffer("bar");
		ByteBuf firstNative = ((NettyDataBuffer) first).getNativeBuffer();
		StepVerifier.create(DataBufferAggregator.aggregate(Flux.just(first, second), 100, 6))
			.assertNext((joined) -> {
				ByteBuf joinedNative = ((NettyDataBuffer) joined).getNativeBuffer();
				assertThat(joinedNative).isInstanceOf(CompositeByteBuf.class);
				assertThat(((CompositeByteBuf) joinedNative).internalComponent(0)).isSameAs(firstNative);
				assertThat(release(joined)).isEqualTo("foobar");
			})
			.verifyComplete();
	}

	@Test
	void nettyBodyOfManyPiecesStaysGathered() {
		use(LeakTrackingDataBufferFactory.nettyPooled());
		String body = "x".repeat(AggregatingMono.MAX_COMPOSITE_COMPONENTS);
		Flux<DataBuffer> pieces = Flux.range(0, body.length()).map((i) -> buffer("x"));
		StepVerifier.create(DataBufferAggregator.aggregate(pieces, -1, -1))
			.assertNext((joined) -> {
				assertThat(((NettyDataBuffer) joined).getNativeBuffer()).isInstanceOf(CompositeByteBuf.class);
				assertThat(release(joined)).isEqualTo(body);
			})
			.verifyComplete();
	}

	@Test
	void nettyBodyTricklingInIsMovedIntoOneBuffer() {
		use(LeakTrackingDataBufferFactory.nettyPooled());
		StringBuilder body = new StringBuilder();
		for (int i = 0; i < AggregatingMono.MAX_COMPOSITE_COMPONENTS * 3 / 2; i++) {
			body.append((char) ('a' + i % 26));
		}
		Flux<DataBuffer> pieces = Flux.range(0, body.length()).map((i) -> buffer(body.substring(i, i + 1)));
		StepVerifier.create(DataBufferAggregator.aggregate(pieces, -1, -1))
			.assertNext((joined) -> {
				assertThat(((NettyDataBuffer) joined).getNativeBuffer()).isNotInstanceOf(CompositeByteBuf.class);
				assertThat(release(joined)).isEqualTo(body.toString());
			})
			.verifyComplete();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void bodyLongerThanExpectedLengthIsStillJoinedWhole(LeakTrackingDataBufferFactory factory) {
		use(factory);
		Flux<DataBuffer> body = Flux.just(buffer("12345"), buffer("67890"), buffer("abc"));
		StepVerifier.create(DataBufferAggregator.aggregate(body, 100, 4))
			.assertNext((joined) -> assertThat(release(joined)).isEqualTo("1234567890abc"))
			.verifyComplete();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void bodyShorterThanExpectedLengthIsJoinedAsReceived(LeakTrackingDataBufferFactory factory) {
		use(factory);
		Flux<DataBuffer> body = Flux.just(buffer("12"), buffer("34"));
		StepVerifier.create(DataBufferAggregator.aggregate(body, 100, 50))
			.assertNext((joined) -> assertThat(release(joined)).isEqualTo("1234"))
			.verifyComplete();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void expectedLengthAboveLimitFailsBeforeReading(LeakTrackingDataBufferFactory factory) {
		use(factory);
		AtomicBoolean subscribed = new AtomicBoolean();
		Flux<DataBuffer> body = Flux.defer(() -> {
			subscribed.set(true);
			return Flux.just(buffer("too long"));
		});
		StepVerifier.create(DataBufferAggregator.aggregate(body, 4, 8))
			.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOf(DataBufferLimitException.class)
				.hasMessage("Exceeded limit on max bytes to buffer : 4"))
			.verify();
		assertThat(subscribed).isFalse();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void runningCountAboveLimitFailsAndReleasesEverything(LeakTrackingDataBufferFactory factory) {
		use(factory);
		AtomicBoolean cancelled = new AtomicBoolean();
		Flux<DataBuffer> body = Flux.just("123", "456", "789", "never read")
			.map(this::buffer)
			.doOnCancel(() -> cancelled.set(true))
			.doOnDiscard(DataBuffer.class, DataBufferUtils::release);
		StepVerifier.create(DataBufferAggregator.aggregate(body, 8, -1))
			.expectError(DataBufferLimitException.class)
			.verify();
		assertThat(cancelled).isTrue();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void singleBufferAboveLimitFailsAndIsReleased(LeakTrackingDataBufferFactory factory) {
		use(factory);
		StepVerifier.create(DataBufferAggregator.aggregate(Flux.just(buffer("123456789")), 8, -1))
			.expectError(DataBufferLimitException.class)
			.verify();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void bodyOfExactlyTheLimitIsAccepted(LeakTrackingDataBufferFactory factory) {
		use(factory);
		StepVerifier.create(DataBufferAggregator.aggregate(Flux.just(buffer("1234"), buffer("5678")), 8, 8))
			.assertNext((joined) -> assertThat(release(joined)).isEqualTo("12345678"))
			.verifyComplete();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void errorMidStreamReleasesWhatWasReceived(LeakTrackingDataBufferFactory factory) {
		use(factory);
		Flux<DataBuffer> body = Flux.concat(Flux.just(buffer("foo"), buffer("bar")),
				Flux.error(new IllegalStateException("connection reset")));
		StepVerifier.create(DataBufferAggregator.aggregate(body, 100, -1))
			.expectErrorMessage("connection reset")
			.verify();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void errorAfterSingleBufferReleasesIt(LeakTrackingDataBufferFactory factory) {
		use(factory);
		Flux<DataBuffer> body = Flux.concat(Flux.just(buffer("foo")), Flux.error(new IllegalStateException("boom")));
		StepVerifier.create(DataBufferAggregator.aggregate(body, 100, -1)).expectError().verify();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void cancelMidStreamReleasesWhatWasReceivedAndCancelsUpstream(LeakTrackingDataBufferFactory factory) {
		use(factory);
		TestPublisher<DataBuffer> body = TestPublisher.create();
		StepVerifier.create(DataBufferAggregator.aggregate(body, 100, -1))
			.then(() -> body.next(buffer("foo"), buffer("bar")))
			.thenCancel()
			.verify();
		body.assertCancelled();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void cancelAfterCompletionButBeforeRequestReleasesTheResult(LeakTrackingDataBufferFactory factory) {
		use(factory);
		TestPublisher<DataBuffer> body = TestPublisher.create();
		BaseSubscriber<DataBuffer> requestsNothing = new BaseSubscriber<>() {

			@Override
			protected void hookOnSubscribe(Subscription subscription) {
			}

		};
		DataBufferAggregator.aggregate(body, 100, -1).subscribe(requestsNothing);
		body.next(buffer("foo"), buffer("bar")).complete();
		requestsNothing.dispose();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void buffersEmittedAfterCancelAreReleased(LeakTrackingDataBufferFactory factory) {
		use(factory);
		TestPublisher<DataBuffer> body = TestPublisher.createNoncompliant(TestPublisher.Violation.CLEANUP_ON_TERMINATE);
		StepVerifier.create(DataBufferAggregator.aggregate(body, 100, -1))
			.then(() -> body.next(buffer("foo")))
			.thenCancel()
			.verify();
		body.next(buffer("late"));
	}

	@ParameterizedTest
	@MethodSource("factories")
	void buffersEmittedAfterLimitFailureAreReleased(LeakTrackingDataBufferFactory factory) {
		use(factory);
		TestPublisher<DataBuffer> body = TestPublisher.createNoncompliant(TestPublisher.Violation.CLEANUP_ON_TERMINATE);
		StepVerifier.create(DataBufferAggregator.aggregate(body, 4, -1))
			.then(() -> body.next(buffer("12345")))
			.expectError(DataBufferLimitException.class)
			.verify();
		body.next(buffer("late"));
	}

	@ParameterizedTest
	@MethodSource("factories")
	void monoWithoutLimitIsReturnedAsIs(LeakTrackingDataBufferFactory factory) {
		use(factory);
		Mono<DataBuffer> body = Mono.fromSupplier(() -> buffer("mono"));
		assertThat(DataBufferAggregator.aggregate(body, -1, -1)).isSameAs(body);
	}

	/**
	 * A {@code Mono} is at most one buffer and already held, and {@code DataBufferUtils.join}
	 * passes it on unchecked: decoders join what a reader already joined, and must not fail
	 * what it accepted.
	 */
	@ParameterizedTest
	@MethodSource("factories")
	void monoAboveLimitIsPassedOnAsStockPassesIt(LeakTrackingDataBufferFactory factory) {
		use(factory);
		Outcome stock = outcome(DataBufferUtils.join(Mono.fromSupplier(() -> buffer("too long")), 4));
		Outcome fastpath = outcome(DataBufferAggregator.aggregate(Mono.fromSupplier(() -> buffer("too long")), 4, -1));
		assertThat(stock).isEqualTo(new Outcome("too long", null));
		assertThat(fastpath).isEqualTo(stock);
	}

	@ParameterizedTest
	@MethodSource("factories")
	void monoWithExpectedLengthAboveLimitStillFailsBeforeReading(LeakTrackingDataBufferFactory factory) {
		use(factory);
		AtomicBoolean subscribed = new AtomicBoolean();
		Mono<DataBuffer> body = Mono.fromSupplier(() -> buffer("too long")).doOnSubscribe((s) -> subscribed.set(true));
		StepVerifier.create(DataBufferAggregator.aggregate(body, 4, 8))
			.expectError(DataBufferLimitException.class)
			.verify();
		assertThat(subscribed).isFalse();
	}

	/**
	 * With no limit ({@code max-in-memory-size=-1}, as applications set it for uploads) a
	 * sender announcing 2 GB and sending two small pieces must not make us ask for 2 GB:
	 * the joined buffer is sized from what arrived. The factory refuses (and records) any
	 * request over 64 MB instead of making it.
	 */
	@ParameterizedTest
	@MethodSource("factories")
	void lyingContentLengthWithoutLimitIsNotAllocated(LeakTrackingDataBufferFactory factory) {
		use(factory);
		Flux<DataBuffer> body = Flux.just(buffer("two "), buffer("small pieces"));
		int inputs = factory.requestedCapacities().size();
		StepVerifier.create(DataBufferAggregator.aggregate(body, -1, 2_000_000_000L))
			.assertNext((joined) -> assertThat(release(joined)).isEqualTo("two small pieces"))
			.verifyComplete();
		assertThat(factory.requestedCapacities().subList(inputs, factory.requestedCapacities().size()))
			.as("capacities asked for by the aggregator")
			.allSatisfy((capacity) -> assertThat(capacity).isLessThanOrEqualTo(2 * 16));
	}

	/**
	 * The same for a Netty body that trickles in as more pieces than a composite takes,
	 * where the aggregator moves it into one buffer of its own.
	 */
	@Test
	void lyingContentLengthOfNettyTrickleIsNotAllocated() {
		LeakTrackingDataBufferFactory netty = use(LeakTrackingDataBufferFactory.nettyPooled());
		int pieces = AggregatingMono.MAX_COMPOSITE_COMPONENTS + 100;
		Flux<DataBuffer> body = Flux.range(0, pieces).map((i) -> buffer("x"));
		StepVerifier.create(DataBufferAggregator.aggregate(body, -1, 2_000_000_000L))
			.assertNext((joined) -> assertThat(release(joined)).isEqualTo("x".repeat(pieces)))
			.verifyComplete();
		assertThat(netty.requestedCapacities()).as("capacities asked for, pieces and joined buffer")
			.allSatisfy((capacity) -> assertThat(capacity).isLessThanOrEqualTo(2 * pieces));
	}

	/**
	 * A slow sender announcing as much as the limit allows (256 KB by default) and sending
	 * a little at a time holds about what it sent, as with stock, and not the announced
	 * length: after every piece, the heap buffers still held (its pieces not yet copied and
	 * the joined buffer) come to at most twice the bytes received.
	 */
	@Test
	void slowSenderWithLyingContentLengthHoldsAtMostTwiceWhatItSent() {
		LeakTrackingDataBufferFactory.Heap heap = (LeakTrackingDataBufferFactory.Heap) use(
				LeakTrackingDataBufferFactory.heap());
		int limit = 256 * 1024;
		TestPublisher<DataBuffer> body = TestPublisher.create();
		Disposable reading = DataBufferAggregator.aggregate(body, limit, limit).subscribe();
		long sent = 0;
		for (int piece = 0; piece < 40; piece++) {
			String bytes = String.valueOf((char) ('a' + piece % 26)).repeat(100 + piece * 7);
			sent += bytes.length();
			body.next(buffer(bytes));
			assertThat(heap.capacityHeld()).as("bytes held after %d bytes received", sent)
				.isLessThanOrEqualTo(2 * sent);
		}
		reading.dispose();
		body.assertCancelled();
	}

	/** Bodies that grow from small first pieces end in one buffer no larger than twice the body. */
	@ParameterizedTest
	@MethodSource("factories")
	void joinedBufferGrowsWithTheBodyUpToTheExpectedLength(LeakTrackingDataBufferFactory factory) {
		use(factory);
		StringBuilder expected = new StringBuilder();
		List<DataBuffer> pieces = new ArrayList<>();
		for (int size = 1; expected.length() < 5000; size = size * 3 / 2 + 1) {
			String piece = String.valueOf((char) ('a' + pieces.size() % 26)).repeat(size);
			expected.append(piece);
			pieces.add(buffer(piece));
		}
		int inputs = factory.requestedCapacities().size();
		int length = expected.length();
		StepVerifier.create(DataBufferAggregator.aggregate(Flux.fromIterable(pieces), -1, length))
			.assertNext((joined) -> assertThat(release(joined)).isEqualTo(expected.toString()))
			.verifyComplete();
		assertThat(factory.requestedCapacities().subList(inputs, factory.requestedCapacities().size()))
			.allSatisfy((capacity) -> assertThat(capacity).isLessThanOrEqualTo(length));
	}

	@ParameterizedTest
	@MethodSource("factories")
	void joinsAsStockDoesForRandomBodiesAndSplits(LeakTrackingDataBufferFactory factory) {
		use(factory);
		long seed = TestSeed.SEED;
		Random random = TestSeed.random("joinsAsStockDoesForRandomBodiesAndSplits");
		for (int i = 0; i < 300; i++) {
			byte[] body = new byte[random.nextInt(3000)];
			random.nextBytes(body);
			List<byte[]> chunks = split(body, random);
			int limit = random.nextInt(4) == 0 ? random.nextInt(3000) : -1;
			long expectedLength = random.nextBoolean() ? body.length : -1;
			Outcome stock = outcome(DataBufferUtils.join(chunks(chunks), limit));
			Outcome fastpath = outcome(DataBufferAggregator.aggregate(chunks(chunks), limit, expectedLength));
			assertThat(fastpath).as("seed %d, case %d", seed, i).isEqualTo(stock);
		}
	}

	private Flux<DataBuffer> chunks(List<byte[]> chunks) {
		return Flux.fromIterable(chunks).map(this.factory::bufferOf);
	}

	private static Outcome outcome(Mono<DataBuffer> joined) {
		try {
			DataBuffer buffer = joined.block(Duration.ofSeconds(5));
			if (buffer == null) {
				return new Outcome(null, null);
			}
			byte[] bytes = new byte[buffer.readableByteCount()];
			buffer.read(bytes);
			DataBufferUtils.release(buffer);
			return new Outcome(new String(bytes, StandardCharsets.ISO_8859_1), null);
		}
		catch (RuntimeException ex) {
			return new Outcome(null, ex.getClass());
		}
	}

	@ParameterizedTest
	@MethodSource("factories")
	void collectGivesTheBodysOwnBuffersInOrderWithoutJoining(LeakTrackingDataBufferFactory factory) {
		use(factory);
		DataBuffer first = buffer("foo");
		DataBuffer second = buffer("bar");
		StepVerifier.create(DataBufferAggregator.collect(Flux.just(first, second), 6, () -> {
			throw new AssertionError("limit not exceeded");
		})).assertNext((parts) -> {
			assertThat(parts).containsExactly(first, second);
			parts.forEach(DataBufferUtils::release);
		}).verifyComplete();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void collectOfAnEmptyBodyGivesAnEmptyList(LeakTrackingDataBufferFactory factory) {
		use(factory);
		StepVerifier.create(DataBufferAggregator.collect(Flux.empty(), 6, () -> {
		})).assertNext((parts) -> assertThat(parts).isEmpty()).verifyComplete();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void collectOverTheLimitReleasesWhatItHeldCancelsUpstreamAndSaysSoOnce(LeakTrackingDataBufferFactory factory) {
		use(factory);
		TestPublisher<DataBuffer> body = TestPublisher.create();
		AtomicInteger exceeded = new AtomicInteger();
		StepVerifier.create(DataBufferAggregator.collect(body, 5, exceeded::incrementAndGet))
			.then(() -> body.next(buffer("foo"), buffer("bar")))
			.expectErrorSatisfies((error) -> assertThat(error).isInstanceOf(DataBufferLimitException.class)
				.hasMessage("Exceeded limit on max bytes to buffer : 5"))
			.verify();
		body.assertCancelled();
		assertThat(exceeded).hasValue(1);
	}

	@ParameterizedTest
	@MethodSource("factories")
	void collectCancelledMidStreamReleasesWhatItHeld(LeakTrackingDataBufferFactory factory) {
		use(factory);
		TestPublisher<DataBuffer> body = TestPublisher.create();
		StepVerifier.create(DataBufferAggregator.collect(body, 100, () -> {
		})).then(() -> body.next(buffer("foo"), buffer("bar"))).thenCancel().verify();
		body.assertCancelled();
	}

	@ParameterizedTest
	@MethodSource("factories")
	void collectFailedUpstreamReleasesWhatItHeld(LeakTrackingDataBufferFactory factory) {
		use(factory);
		TestPublisher<DataBuffer> body = TestPublisher.create();
		StepVerifier.create(DataBufferAggregator.collect(body, 100, () -> {
		}))
			.then(() -> body.next(buffer("foo")).error(new IllegalStateException("connection lost")))
			.expectErrorMessage("connection lost")
			.verify();
	}

	private static List<byte[]> split(byte[] body, Random random) {
		List<byte[]> chunks = new ArrayList<>();
		int position = 0;
		while (position < body.length) {
			int size = 1 + random.nextInt(Math.min(body.length - position, random.nextBoolean() ? 8 : 1024));
			byte[] chunk = new byte[size];
			System.arraycopy(body, position, chunk, 0, size);
			chunks.add(chunk);
			position += size;
		}
		return chunks;
	}

	private DataBuffer buffer(String content) {
		return this.factory.bufferOf(content.getBytes(StandardCharsets.UTF_8));
	}

	private static String release(DataBuffer buffer) {
		String content = buffer.toString(StandardCharsets.UTF_8);
		DataBufferUtils.release(buffer);
		return content;
	}

	record Outcome(String content, Class<?> error) {
	}

}
