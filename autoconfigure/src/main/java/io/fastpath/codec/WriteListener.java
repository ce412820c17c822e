package io.fastpath.codec;

/**
 * Told by Fastpath's writers of each body they wrote in batches, once it has ended:
 * completed, failed or cancelled. The twin of {@link ReadListener}: Fastpath's
 * auto-configuration binds one to Micrometer counters when Micrometer is present; plain
 * Spring WebFlux applications pass their own to {@code JsonBatchEncoding}.
 * <p>Told at the end and not when the body is subscribed to, as a reader tells its
 * decision, because what went out is known only then. Called once per subscription to a
 * body (a {@code Flux} counts once, not once per value), on the thread that ends it:
 * an implementation must be thread-safe and must not block. Writers count as they go
 * and make one {@link WriteEvent} per body, and none when the listener is {@link #NONE}.
 * An exception a listener throws does not change the body: it is dropped, as Reactor
 * drops errors ({@code Hooks.onErrorDropped}).
 *
 * @author Fastpath
 */
@FunctionalInterface
public interface WriteListener {

	/** A listener that does nothing: the default of every decorator. */
	WriteListener NONE = (event) -> {
	};

	/**
	 * Called when a body written in batches has ended.
	 * @param event what was written and how the body ended
	 */
	void onWrite(WriteEvent event);

}
