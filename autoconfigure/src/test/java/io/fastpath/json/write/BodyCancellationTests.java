package io.fastpath.json.write;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.fastpath.test.NoDroppedErrorsExtension;
import io.fastpath.test.TestSeed;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A body cancelled when its write ends: before the write took it, after, and as it emits
 * from a thread of its own, when every buffer it emitted must still reach the write's
 * subscriber, which releases it.
 */
@ExtendWith({ TestSeed.class, NoDroppedErrorsExtension.class })
class BodyCancellationTests {

	private static final int RACE_ROUNDS = 2000;

	@Test
	void aWriteThatEndsWithoutTakingTheBodyCancelsIt() {
		AtomicBoolean cancelled = new AtomicBoolean();
		Sinks.Many<String> body = Sinks.many().unicast().onBackpressureBuffer();
		Mono<Void> write = BodyCancellation.cancelledWithWrite(body.asFlux().doOnCancel(() -> cancelled.set(true)),
				(flux) -> {
					// Takes the first element, as Spring's ChannelSendOperator does, then fails
					flux.subscribe(new BaseSubscriber<>() {

						@Override
						protected void hookOnSubscribe(Subscription subscription) {
							request(1);
						}

					});
					return Mono.error(new IllegalStateException("Simulated: connection closed"));
				});
		body.tryEmitNext("first");
		assertThat(write.onErrorResume((ex) -> Mono.empty()).block(Duration.ofSeconds(5))).isNull();
		assertThat(cancelled).isTrue();
	}

	@Test
	void aWriteThatEndsBeforeItSubscribesToTheBodyCancelsItAsSoonAsItDoes() {
		AtomicBoolean cancelled = new AtomicBoolean();
		List<Flux<String>> bodies = new CopyOnWriteArrayList<>();
		BodyCancellation.cancelledWithWrite(Flux.just("a").doOnCancel(() -> cancelled.set(true)), (flux) -> {
			bodies.add(flux);
			return Mono.empty();
		}).block(Duration.ofSeconds(5));
		List<String> taken = new CopyOnWriteArrayList<>();
		bodies.get(0).subscribe(taken::add);
		assertThat(cancelled).isTrue();
		assertThat(taken).isEmpty();
	}

	@Test
	void aBodyThatEndedBeforeItsWriteIsNotCancelled() {
		AtomicBoolean cancelled = new AtomicBoolean();
		List<String> written = new CopyOnWriteArrayList<>();
		BodyCancellation.cancelledWithWrite(Flux.just("a", "b").doOnCancel(() -> cancelled.set(true)),
				(flux) -> flux.doOnNext(written::add).then())
			.block(Duration.ofSeconds(5));
		assertThat(written).containsExactly("a", "b");
		assertThat(cancelled).isFalse();
	}

	/**
	 * A body that emits buffers from a thread of its own while its write ends on another,
	 * as a source handed over by {@code publishOn} races a client's reset: whatever the
	 * interleaving, each buffer the body made reaches the write's subscriber, which releases
	 * it (a transport releases what comes after its end), or is never made. Counted here
	 * rather than by a counting factory: a round makes thousands of buffers.
	 */
	@Test
	void everyBufferABodyEmitsAsItsWriteEndsReachesTheWrite() throws InterruptedException {
		Random random = TestSeed.random("bodyCancellationRace");
		Scheduler source = Schedulers.newSingle("body-source");
		Scheduler transport = Schedulers.newSingle("transport");
		try {
			for (int round = 0; round < RACE_ROUNDS; round++) {
				int spins = random.nextInt(5_000);
				AtomicInteger made = new AtomicInteger();
				AtomicInteger received = new AtomicInteger();
				CountDownLatch ended = new CountDownLatch(1);
				Flux<DataBuffer> body = Flux.range(0, 100_000)
					.map((value) -> {
						made.incrementAndGet();
						return (DataBuffer) DefaultDataBufferFactory.sharedInstance.wrap(new byte[] { value.byteValue() });
					})
					.subscribeOn(source)
					.doOnCancel(ended::countDown)
					.doOnTerminate(ended::countDown);
				BodyCancellation.cancelledWithWrite(body, (flux) -> {
					flux.subscribe(new BaseSubscriber<>() {

						@Override
						protected void hookOnNext(DataBuffer buffer) {
							received.incrementAndGet();
							DataBufferUtils.release(buffer);
						}

					});
					// The write ends on the transport's thread, a seeded while after it began
					return Mono.fromRunnable(() -> spin(spins)).subscribeOn(transport).then();
				}).block(Duration.ofSeconds(10));
				// Cancelled once the write ended, or complete before; then the source's thread
				// ends its loop, and a task behind it on that thread runs once every buffer
				// made was handed on
				assertThat(ended.await(10, TimeUnit.SECONDS)).as("the body ended, round %d", round).isTrue();
				Mono.fromRunnable(() -> {
				}).subscribeOn(source).block(Duration.ofSeconds(10));
				assertThat(received.get()).as("buffers the write received of those made, round %d", round)
					.isEqualTo(made.get());
			}
		}
		finally {
			source.dispose();
			transport.dispose();
		}
	}

	private static void spin(int spins) {
		for (int i = 0; i < spins; i++) {
			Thread.onSpinWait();
		}
	}

}
