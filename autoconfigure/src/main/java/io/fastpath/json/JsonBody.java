package io.fastpath.json;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.ObjectReader;

/**
 * A whole body that a parser can read, and read again: a fast path that gives up leaves
 * the body as it was, for Databind.
 *
 * @author Fastpath
 */
interface JsonBody {

	/**
	 * Create a parser over the body, from its start.
	 * @param reader the reader, for its parser configuration
	 * @return the parser
	 */
	JsonParser parser(ObjectReader reader);

	/**
	 * Read the whole body as the reader's type, from its start, as {@code readValue} of the
	 * bytes would.
	 * @param reader the reader
	 * @return the value
	 */
	@Nullable Object readValue(ObjectReader reader);

	/**
	 * Count the occurrences of a byte in the body: not while a parser reads it.
	 * @param value the byte
	 * @return how many times it occurs
	 */
	int count(byte value);

}
