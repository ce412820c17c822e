package io.fastpath.buffer;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;

/**
 * The operator behind {@link DataBufferAggregator#aggregate}: one {@code Mono} and one
 * subscriber per body, holding the single buffer received or the buffer it joins into.
 * A hand-written subscriber rather than {@code collect}/{@code reduce}, because the point
 * is to allocate nothing per body beyond these two objects on the one-buffer path.
 *
 * @author Fastpath
 */
final class AggregatingMono extends Mono<DataBuffer> {

	private final Publisher<? extends DataBuffer> source;

	private final int maxByteCount;

	private final long expectedLength;

	AggregatingMono(Publisher<? extends DataBuffer> source, int maxByteCount, long expectedLength) {
		this.source = source;
		this.maxByteCount = maxByteCount;
		this.expectedLength = expectedLength;
	}

	@Override
	public void subscribe(CoreSubscriber<? super DataBuffer> actual) {
		this.source.subscribe(new AggregatingSubscriber(actual, this.maxByteCount, this.expectedLength));
	}

	static final class AggregatingSubscriber extends Operators.MonoSubscriber<DataBuffer, DataBuffer> {

		private final int maxByteCount;

		private final long expectedLength;

		private @Nullable Subscription upstream;

		/**
		 * The first buffer received while it is the only one, then the buffer that the body
		 * is joined into. Guarded by {@code this}: onNext runs on the upstream thread, cancel
		 * may run on any thread, and whichever comes second must release what the other holds.
		 */
		private @Nullable DataBuffer held;

		/** Whether {@link #held} is our own joined buffer rather than the first buffer received. */
		private boolean joined;

		private long byteCount;

		private boolean done;

		AggregatingSubscriber(CoreSubscriber<? super DataBuffer> actual, int maxByteCount, long expectedLength) {
			super(actual);
			this.maxByteCount = maxByteCount;
			this.expectedLength = expectedLength;
		}

		@Override
		public void onSubscribe(Subscription subscription) {
			if (Operators.validate(this.upstream, subscription)) {
				this.upstream = subscription;
				this.actual.onSubscribe(this);
				subscription.request(Long.MAX_VALUE);
			}
		}

		@Override
		public void onNext(DataBuffer buffer) {
			if (this.done) {
				DataBufferUtils.release(buffer);
				return;
			}
			this.byteCount += buffer.readableByteCount();
			if (this.maxByteCount >= 0 && this.byteCount > this.maxByteCount) {
				DataBufferUtils.release(buffer);
				cancelUpstream();
				fail(DataBufferAggregator.limitExceeded(this.maxByteCount));
				return;
			}
			try {
				synchronized (this) {
					if (isCancelled()) {
						DataBufferUtils.release(buffer);
						return;
					}
					if (this.held == null) {
						this.held = buffer;
						return;
					}
					append(buffer);
				}
			}
			catch (Throwable ex) {
				// Allocation or copy failed; append left in held only what is still ours.
				cancelUpstream();
				fail(ex);
			}
		}

		private void append(DataBuffer next) {
			try {
				DataBuffer target = this.held;
				if (!this.joined) {
					// The first buffer is the sender's: join into a buffer of our own, once.
					this.held = null;
					target = copyIntoOwnBuffer(target);
					this.held = target;
					this.joined = true;
				}
				copy(next, target);
			}
			finally {
				DataBufferUtils.release(next);
			}
		}

		private DataBuffer copyIntoOwnBuffer(DataBuffer first) {
			try {
				DataBuffer target = first.factory().allocateBuffer(initialCapacity());
				try {
					copy(first, target);
					return target;
				}
				catch (Throwable ex) {
					DataBufferUtils.release(target);
					throw ex;
				}
			}
			finally {
				DataBufferUtils.release(first);
			}
		}

		/**
		 * Copy the readable bytes of source to target, once. Not {@code DataBuffer#write(DataBuffer...)}:
		 * {@code DefaultDataBuffer} implements it by first copying each source into a new
		 * {@code ByteBuffer}. The target grows as its factory grows buffers.
		 */
		private static void copy(DataBuffer source, DataBuffer target) {
			try (DataBuffer.ByteBufferIterator readable = source.readableByteBuffers()) {
				while (readable.hasNext()) {
					target.write(readable.next());
				}
			}
		}

		/**
		 * Capacity of the joined buffer, once two buffers are in: the announced length when
		 * the body so far fits in it, else twice what has arrived (the factory grows it
		 * further if needed), never more than the limit allows.
		 */
		private int initialCapacity() {
			long received = this.byteCount;
			if (this.expectedLength >= received && this.expectedLength <= Integer.MAX_VALUE) {
				return (int) this.expectedLength;
			}
			long capacity = Math.min(received * 2, Integer.MAX_VALUE - 8);
			if (this.maxByteCount >= 0) {
				capacity = Math.min(capacity, this.maxByteCount);
			}
			return (int) Math.max(capacity, received);
		}

		@Override
		public void onError(Throwable error) {
			if (this.done) {
				Operators.onErrorDropped(error, this.actual.currentContext());
				return;
			}
			fail(error);
		}

		private void fail(Throwable error) {
			this.done = true;
			releaseHeld();
			this.actual.onError(error);
		}

		@Override
		public void onComplete() {
			if (this.done) {
				return;
			}
			this.done = true;
			DataBuffer result;
			synchronized (this) {
				result = this.held;
				this.held = null;
			}
			if (result == null) {
				this.actual.onComplete();
			}
			else {
				// Emits now or on request; a cancel before then goes through discard.
				complete(result);
			}
		}

		@Override
		public void cancel() {
			super.cancel();
			cancelUpstream();
			releaseHeld();
		}

		@Override
		protected void discard(@Nullable DataBuffer buffer) {
			DataBufferUtils.release(buffer);
		}

		private void cancelUpstream() {
			Subscription subscription = this.upstream;
			if (subscription != null) {
				subscription.cancel();
			}
		}

		private void releaseHeld() {
			DataBuffer buffer;
			synchronized (this) {
				buffer = this.held;
				this.held = null;
			}
			DataBufferUtils.release(buffer);
		}

		@Override
		public @Nullable Object scanUnsafe(Attr key) {
			if (key == Attr.PARENT) {
				return this.upstream;
			}
			if (key == Attr.RUN_STYLE) {
				return Attr.RunStyle.SYNC;
			}
			return super.scanUnsafe(key);
		}

	}

}
