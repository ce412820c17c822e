package io.fastpath.benchmarks;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

/**
 * A reusable subscriber that takes the one value of a {@code Mono}, so benchmarks measure
 * the operator under test and not the cost of {@code block()}.
 *
 * @param <T> the value type
 */
final class ValueSink<T> implements CoreSubscriber<T> {

	private @Nullable T value;

	private @Nullable Throwable error;

	@Override
	public void onSubscribe(Subscription subscription) {
		subscription.request(Long.MAX_VALUE);
	}

	@Override
	public void onNext(T value) {
		this.value = value;
	}

	@Override
	public void onError(Throwable error) {
		this.error = error;
	}

	@Override
	public void onComplete() {
	}

	/**
	 * Return the value received since the last call and forget it.
	 * @return the value
	 */
	T take() {
		if (this.error != null) {
			throw new IllegalStateException(this.error);
		}
		T result = this.value;
		if (result == null) {
			throw new IllegalStateException("No value");
		}
		this.value = null;
		return result;
	}

}
