package io.fastpath.json.write;

import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * Cancels the body of a write when the write ends first. Spring's
 * {@code ChannelSendOperator} subscribes to a body and takes its first element before it
 * starts the transport's write; when that write ends without having taken the body
 * (Reactor Netty fails a send on a connection already closed, a client that reset before
 * the response, without subscribing to it), the operator's
 * {@code WriteCompletionBarrier} passes the end on and releases the first element if it
 * is a buffer, but never cancels its subscription to the body. The body is left
 * subscribed and unasked: {@link ReadyBatches} would hold the batch it had begun and its
 * source open, with nothing to release or cancel them. The body here is cancelled, and so
 * releases what it holds, whenever the write ends, however it ends; a body that ended
 * first is left as it was.
 * <p>Only the body is cancelled; nothing downstream of it is told. An element that the
 * body emits as it is cancelled (from a source's own thread, racing the end of the write
 * on the transport's) goes on to the transport, which releases what comes after its end
 * as it does for stock's writers. Reactor's {@code takeUntilOther}, which would also
 * complete the write's subscriber, drops such an element instead
 * ({@code onNextDropped}: logged, never released), and its buffer is lost.
 *
 * @author Fastpath
 */
final class BodyCancellation {

	private BodyCancellation() {
	}

	/**
	 * Write the given body, cancelled when the write ends.
	 * @param <T> the type of the body's elements
	 * @param body the body
	 * @param write writes the body it is given
	 * @return the write
	 */
	static <T> Mono<Void> cancelledWithWrite(Publisher<T> body, Function<Flux<T>, Mono<Void>> write) {
		return Mono.defer(() -> {
			BodySubscription subscription = new BodySubscription();
			return write.apply(Flux.from(body).doOnSubscribe(subscription::set).doOnTerminate(subscription::ended))
				.doFinally((signal) -> subscription.cancel());
		});
	}

	/**
	 * The subscription to the body: cancelled at once when the write ended before it was
	 * made, never once the body ended.
	 */
	private static final class BodySubscription {

		@SuppressWarnings("rawtypes")
		private static final AtomicReferenceFieldUpdater<BodySubscription, Subscription> SUBSCRIPTION = AtomicReferenceFieldUpdater
			.newUpdater(BodySubscription.class, Subscription.class, "subscription");

		private volatile @Nullable Subscription subscription;

		void set(Subscription subscription) {
			Operators.setOnce(SUBSCRIPTION, this, subscription);
		}

		void ended() {
			SUBSCRIPTION.set(this, Operators.cancelledSubscription());
		}

		void cancel() {
			Operators.terminate(SUBSCRIPTION, this);
		}

	}

}
