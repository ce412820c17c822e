package io.fastpath.json.write;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Scheduler;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.ReactiveHttpOutputMessage;

/**
 * A body written with a flush after each of its parts ({@code writeAndFlushWith}), whose
 * parts are released when the write ends before the transport subscribed to them. Reactor
 * Netty writes such a body through a {@code concatMap} that asks for 32 parts ahead; when
 * the connection goes, the parts it queued are dropped as publishers, never subscribed,
 * and the buffer in each is lost to Netty: a discard hook sees Spring's mapping of the
 * part, not the buffer. Each part here is subscribed to at most once; those still
 * unsubscribed when the write ends, for whatever reason, are drained and their buffers
 * released, once. On Reactor Netty, the parts are handed to the connection's event loop
 * before they reach the transport ({@link SendingEventLoop}).
 *
 * @author Fastpath
 */
final class FlushedParts {

	/**
	 * The parts asked for ahead when they are handed to Reactor Netty's event loop: as many
	 * as it asks for itself. What they hold is bounded by the body's pacing, not by this.
	 */
	private static final int PARTS_AHEAD = 32;

	/** The parts emitted and not yet subscribed to; {@code null} once the write ended. */
	private @Nullable ArrayDeque<Part> unsubscribed = new ArrayDeque<>();

	private FlushedParts() {
	}

	/**
	 * Write the given parts to the message, each flushed after it, and release the parts
	 * the transport never subscribed to.
	 * @param message the message
	 * @param parts the parts of the body, each holding its buffers
	 * @return the write
	 */
	static Mono<Void> writeAndFlush(ReactiveHttpOutputMessage message,
			Publisher<? extends Publisher<? extends DataBuffer>> parts) {
		return Mono.defer(() -> {
			FlushedParts flushed = new FlushedParts();
			Flux<Part> flushedParts = Flux.from(parts).map(flushed::add);
			Scheduler loop = SendingEventLoop.of(message);
			if (loop != null) {
				flushedParts = flushedParts.publishOn(loop, PARTS_AHEAD);
			}
			return message.writeAndFlushWith(flushedParts).doFinally((signal) -> flushed.end());
		});
	}

	private Part add(Publisher<? extends DataBuffer> source) {
		Part part = new Part(this, source);
		synchronized (this) {
			ArrayDeque<Part> unsubscribed = this.unsubscribed;
			if (unsubscribed != null) {
				unsubscribed.add(part);
				return part;
			}
		}
		// The write ended while the part was being emitted
		part.release();
		return part;
	}

	private synchronized void subscribed(Part part) {
		ArrayDeque<Part> unsubscribed = this.unsubscribed;
		if (unsubscribed != null) {
			unsubscribed.remove(part);
		}
	}

	private void end() {
		List<Part> left;
		synchronized (this) {
			ArrayDeque<Part> unsubscribed = this.unsubscribed;
			left = (unsubscribed != null) ? new ArrayList<>(unsubscribed) : List.of();
			this.unsubscribed = null;
		}
		left.forEach(Part::release);
	}

	/** A part subscribed to once, by the transport or, to release it, by the end of the write. */
	private static final class Part extends Flux<DataBuffer> {

		@SuppressWarnings("rawtypes")
		private static final AtomicIntegerFieldUpdater<Part> TAKEN = AtomicIntegerFieldUpdater.newUpdater(Part.class,
				"taken");

		private final FlushedParts parts;

		private final Publisher<? extends DataBuffer> source;

		private volatile int taken;

		Part(FlushedParts parts, Publisher<? extends DataBuffer> source) {
			this.parts = parts;
			this.source = source;
		}

		@Override
		public void subscribe(CoreSubscriber<? super DataBuffer> actual) {
			if (!TAKEN.compareAndSet(this, 0, 1)) {
				Operators.error(actual, new IllegalStateException("A part of a flushed body is subscribed to once"));
				return;
			}
			this.parts.subscribed(this);
			this.source.subscribe(actual);
		}

		/** Drain the part and release its buffers, unless it was subscribed to. */
		void release() {
			if (TAKEN.compareAndSet(this, 0, 1)) {
				// A part that fails instead has no buffer left to release
				Flux.from(this.source).subscribe(DataBufferUtils::release, (ex) -> {
				});
			}
		}

	}

}
