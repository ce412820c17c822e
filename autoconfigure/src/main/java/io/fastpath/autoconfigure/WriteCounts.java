package io.fastpath.autoconfigure;

import io.fastpath.codec.WriteEvent;

/**
 * What Fastpath's writers wrote in batches, for the {@code fastpath} endpoint: an
 * interface of its own, as {@link ReadCounts}, so that the endpoint does not load
 * Micrometer types.
 *
 * @author Fastpath
 */
interface WriteCounts {

	/**
	 * Return how many bodies of the given kind ended with the given outcome.
	 * @param kind what the bodies were written as
	 * @param outcome how they ended
	 * @return the count, 0 before any registry is bound
	 */
	long bodies(WriteEvent.Kind kind, WriteEvent.Outcome outcome);

	/**
	 * Return how many values went out in bodies of the given kind.
	 * @param kind what the bodies were written as
	 * @return the count, 0 before any registry is bound
	 */
	long values(WriteEvent.Kind kind);

	/**
	 * Return in how many batches the values of bodies of the given kind went out.
	 * @param kind what the bodies were written as
	 * @return the count, 0 before any registry is bound
	 */
	long batches(WriteEvent.Kind kind);

}
