package io.fastpath.json.write;

import java.util.function.Function;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

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
			Sinks.Empty<Void> ended = Sinks.empty();
			return write.apply(Flux.from(body).takeUntilOther(ended.asMono()))
				.doFinally((signal) -> ended.tryEmitEmpty());
		});
	}

}
