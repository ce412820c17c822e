package io.fastpath.buffer;

import java.util.List;

import org.springframework.core.codec.Decoder;
import org.springframework.http.codec.HttpMessageReader;

/**
 * For tests outside this package: which readers are the whole-body aggregation's, whose
 * type is internal.
 */
public final class AggregatingReaders {

	private AggregatingReaders() {
	}

	/**
	 * Whether the reader is one that {@link WholeBodyAggregation} put in place.
	 * @param reader the reader to check
	 * @return whether its whole body is aggregated
	 */
	public static boolean isAggregating(HttpMessageReader<?> reader) {
		return reader instanceof AggregatingHttpMessageReader<?>;
	}

	/**
	 * The decoders of the aggregating readers among the given ones, in order.
	 * @param readers the readers to look through
	 * @return their decoders
	 */
	public static List<Decoder<?>> aggregatedDecoders(List<HttpMessageReader<?>> readers) {
		return readers.stream()
			.filter(AggregatingReaders::isAggregating)
			.<Decoder<?>>map((reader) -> ((AggregatingHttpMessageReader<?>) reader).getDecoder())
			.toList();
	}

}
