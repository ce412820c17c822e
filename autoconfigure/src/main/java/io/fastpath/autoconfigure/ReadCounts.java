package io.fastpath.autoconfigure;

import io.fastpath.codec.ReadEvent;

/**
 * How many times each decision was recorded, for the {@code fastpath} endpoint: an
 * interface of its own so that the endpoint does not load Micrometer types.
 *
 * @author Fastpath
 */
interface ReadCounts {

	/**
	 * Return how many times the given decision was recorded.
	 * @param event the decision
	 * @return the count, 0 before any registry is bound
	 */
	long count(ReadEvent event);

}
