package io.fastpath.codec;

/**
 * Told by Fastpath's readers and decoders which way each body went: taken by a fast path,
 * handed to the stock reader (and why), or rejected (and why). Fastpath's auto-configuration
 * binds one to Micrometer counters when Micrometer is present; plain Spring WebFlux
 * applications pass their own to the decorators ({@code JsonArrayDecoding},
 * {@code WholeBodyAggregation}, {@code LazyFormDecoding}).
 * <p>Called on the thread that reads the body, once per decision (a {@code Flux} counts
 * once, not once per element): an implementation must be thread-safe, must not block and
 * should not allocate.
 *
 * @author Fastpath
 */
@FunctionalInterface
public interface ReadListener {

	/** A listener that does nothing: the default of every decorator. */
	ReadListener NONE = (event) -> {
	};

	/**
	 * Called when a reader or decoder took a decision about a body.
	 * @param event what was decided
	 */
	void onRead(ReadEvent event);

}
