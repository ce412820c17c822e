package io.fastpath.form;

import java.util.List;

import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;

/**
 * For tests outside this package: the lazy form readers among a codec's readers, whose
 * type is internal, and the limits they were built with.
 */
public final class LazyFormReaders {

	private LazyFormReaders() {
	}

	/**
	 * Whether the reader is one that {@link LazyFormDecoding} put in place.
	 * @param reader the reader to check
	 * @return whether it reads forms lazily
	 */
	public static boolean isLazyForm(HttpMessageReader<?> reader) {
		return reader instanceof LazyFormHttpMessageReader;
	}

	/**
	 * The limits of the lazy form readers among the given ones, in order.
	 * @param readers the readers to look through
	 * @return the field limit and the stock reader's in-memory limit of each
	 */
	public static List<Limits> limits(List<HttpMessageReader<?>> readers) {
		return readers.stream()
			.filter(LazyFormReaders::isLazyForm)
			.map((reader) -> (LazyFormHttpMessageReader) reader)
			.map((reader) -> new Limits(reader.getMaxFields(), reader.getStockReader()))
			.toList();
	}

	/**
	 * The limits of one lazy form reader.
	 * @param maxFields the most fields it reads
	 * @param stockReader the stock reader it falls back to, with its own limits
	 */
	public record Limits(int maxFields, FormHttpMessageReader stockReader) {
	}

}
