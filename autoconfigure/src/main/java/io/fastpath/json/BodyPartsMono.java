package io.fastpath.json;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.LimitedDataBufferList;

/**
 * Gathers the buffers of a body into a list, without joining them, under a byte limit.
 * It releases what it holds by itself on error, limit and cancel, rather than leaving it to
 * Reactor's discard hooks: WebFlux registers {@code DataBuffer} hooks of its own downstream
 * of a request body (see {@link InFlightBuffer}), and a buffer handed to every hook would be
 * released once per hook. Emits the list, possibly empty, which the subscriber then owns.
 *
 * @author Fastpath
 */
final class BodyPartsMono extends Mono<List<DataBuffer>> {

	private final Publisher<? extends DataBuffer> source;

	private final int maxByteCount;

	BodyPartsMono(Publisher<? extends DataBuffer> source, int maxByteCount) {
		this.source = source;
		this.maxByteCount = maxByteCount;
	}

	@Override
	public void subscribe(CoreSubscriber<? super List<DataBuffer>> actual) {
		this.source.subscribe(new PartsSubscriber(actual, this.maxByteCount));
	}

	private static final class PartsSubscriber extends Operators.MonoSubscriber<DataBuffer, List<DataBuffer>> {

		private @Nullable Subscription upstream;

		/**
		 * The parts so far; {@code null} once emitted, failed or cancelled. Guarded by
		 * {@code this}: onNext runs on the upstream thread, cancel may run on any thread.
		 */
		private @Nullable LimitedDataBufferList parts;

		private boolean done;

		PartsSubscriber(CoreSubscriber<? super List<DataBuffer>> actual, int maxByteCount) {
			super(actual);
			this.parts = new LimitedDataBufferList(maxByteCount);
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
			fail(overLimit);
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
			releaseParts();
			this.actual.onError(error);
		}

		@Override
		public void onComplete() {
			if (this.done) {
				return;
			}
			this.done = true;
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
		public void cancel() {
			super.cancel();
			cancelUpstream();
			releaseParts();
		}

		@Override
		protected void discard(@Nullable List<DataBuffer> parts) {
			if (parts != null) {
				parts.forEach(DataBufferUtils::release);
			}
		}

		private void cancelUpstream() {
			Subscription subscription = this.upstream;
			if (subscription != null) {
				subscription.cancel();
			}
		}

		private void releaseParts() {
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
