package io.fastpath.buffer;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;

import org.springframework.core.io.buffer.DataBuffer;

/**
 * Base for subscribers that take all the buffers of a body, hold them, and emit one value
 * made of them. What they hold they release themselves, once, on error, limit and cancel,
 * and never leave to Reactor's discard hooks: WebFlux registers {@code DataBuffer} discard
 * hooks of its own downstream of a request body (writing the response with
 * {@code EncoderHttpMessageWriter}, for one), and a buffer handed to every hook would be
 * released once per hook, taking the reference the transport releases itself.
 * <p>Subclasses hold their buffers under {@code this} (onNext runs on the upstream thread,
 * cancel may run on any), emit with {@link #complete(Object)}, and release a value that
 * was completed but not yet requested when cancelled, in {@link #discard(Object)}.
 *
 * @param <O> the value emitted
 * @author Fastpath
 */
abstract class BodyBufferingSubscriber<O> extends Operators.MonoSubscriber<DataBuffer, O> {

	private @Nullable Subscription upstream;

	private boolean done;

	/**
	 * Create a subscriber for the given downstream subscriber.
	 * @param actual the downstream subscriber
	 */
	protected BodyBufferingSubscriber(CoreSubscriber<? super O> actual) {
		super(actual);
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
	public void onError(Throwable error) {
		if (this.done) {
			Operators.onErrorDropped(error, this.actual.currentContext());
			return;
		}
		fail(error);
	}

	@Override
	public void cancel() {
		super.cancel();
		cancelUpstream();
		releaseHeld();
	}

	/**
	 * Release the buffers held so far, if any; called on error and cancel, possibly twice.
	 */
	protected abstract void releaseHeld();

	/**
	 * Whether the body ended, failed or was given up.
	 * @return {@code true} once {@link #markDone()} or {@link #fail(Throwable)} was called
	 */
	protected final boolean isDone() {
		return this.done;
	}

	/**
	 * Record that the body ended or was given up; buffers arriving afterwards are released.
	 */
	protected final void markDone() {
		this.done = true;
	}

	/**
	 * Give up the body: release what is held and signal the error downstream.
	 * @param error the error
	 */
	protected final void fail(Throwable error) {
		this.done = true;
		releaseHeld();
		this.actual.onError(error);
	}

	/** Stop the body from coming, for example once it is over the limit. */
	protected final void cancelUpstream() {
		Subscription subscription = this.upstream;
		if (subscription != null) {
			subscription.cancel();
		}
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
