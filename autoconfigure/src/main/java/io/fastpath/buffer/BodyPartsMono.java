package io.fastpath.buffer;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.LimitedDataBufferList;

/**
 * Gathers the buffers of a body into a list, without joining them, under a byte limit,
 * releasing them itself on error, limit and cancel (see {@link BodyBufferingSubscriber}).
 * Emits the list, possibly empty, which the subscriber then owns.
 *
 * @author Fastpath
 */
final class BodyPartsMono extends Mono<List<DataBuffer>> {

	private final Publisher<? extends DataBuffer> source;

	private final int maxByteCount;

	private final Runnable limitExceeded;

	BodyPartsMono(Publisher<? extends DataBuffer> source, int maxByteCount, Runnable limitExceeded) {
		this.source = source;
		this.maxByteCount = maxByteCount;
		this.limitExceeded = limitExceeded;
	}

	@Override
	public void subscribe(CoreSubscriber<? super List<DataBuffer>> actual) {
		this.source.subscribe(new PartsSubscriber(actual, this.maxByteCount, this.limitExceeded));
	}

	private static final class PartsSubscriber extends BodyBufferingSubscriber<List<DataBuffer>> {

		/**
		 * The parts so far; {@code null} once emitted, failed or cancelled. Guarded by
		 * {@code this}: onNext runs on the upstream thread, cancel may run on any thread.
		 */
		private @Nullable LimitedDataBufferList parts;

		private final Runnable limitExceeded;

		PartsSubscriber(CoreSubscriber<? super List<DataBuffer>> actual, int maxByteCount, Runnable limitExceeded) {
			super(actual);
			this.parts = new LimitedDataBufferList(maxByteCount);
			this.limitExceeded = limitExceeded;
		}

		@Override
		public void onNext(DataBuffer buffer) {
			if (isDone()) {
				DataBufferUtils.release(buffer);
				return;
			}
			DataBufferLimitException overLimit;
			synchronized (this) {
				LimitedDataBufferList parts = this.parts;
				if (parts == null) {
					DataBufferUtils.release(buffer);
					return;
				}
				try {
					parts.add(buffer);
					return;
				}
				catch (DataBufferLimitException ex) {
					DataBufferUtils.release(buffer);
					overLimit = ex;
				}
			}
			cancelUpstream();
			this.limitExceeded.run();
			fail(overLimit);
		}

		@Override
		public void onComplete() {
			if (isDone()) {
				return;
			}
			markDone();
			List<DataBuffer> result;
			synchronized (this) {
				result = this.parts;
				this.parts = null;
			}
			if (result != null) {
				// Emits now or on request; a cancel before then goes through discard.
				complete(result);
			}
		}

		@Override
		protected void discard(@Nullable List<DataBuffer> parts) {
			if (parts != null) {
				parts.forEach(DataBufferUtils::release);
			}
		}

		@Override
		protected void releaseHeld() {
			LimitedDataBufferList parts;
			synchronized (this) {
				parts = this.parts;
				this.parts = null;
			}
			if (parts != null) {
				parts.releaseAndClear();
			}
		}

	}

}
