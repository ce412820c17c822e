package io.fastpath.multipart;

import java.nio.charset.Charset;

import org.jspecify.annotations.Nullable;

import org.springframework.http.codec.multipart.PartEventHttpMessageReader;

/**
 * The settings of a stock {@link PartEventHttpMessageReader}, which the reader taking its
 * place follows. Like {@link MultipartSettings}, they are read from its fields (it has
 * setters but, the in-memory limit aside, no getters); where that fails, there are no
 * settings and the stock reader stays.
 *
 * @param maxInMemorySize bytes of a form field's value (-1 for no limit)
 * @param maxHeadersSize bytes of the headers of each part
 * @param maxParts most parts (-1 for no limit)
 * @param maxPartSize bytes of any part (-1 for no limit)
 * @param headersCharset the charset of the part headers
 * @author Fastpath
 */
record PartEventSettings(int maxInMemorySize, int maxHeadersSize, int maxParts, long maxPartSize,
		Charset headersCharset) {

	/**
	 * Read the settings of the given stock reader.
	 * @param stock the reader
	 * @return its settings, or {@code null} if they cannot be read
	 */
	static @Nullable PartEventSettings of(PartEventHttpMessageReader stock) {
		try {
			return new PartEventSettings(stock.getMaxInMemorySize(), (int) MultipartSettings.field(stock, "maxHeadersSize"),
					(int) MultipartSettings.field(stock, "maxParts"), (long) MultipartSettings.field(stock, "maxPartSize"),
					(Charset) MultipartSettings.field(stock, "headersCharset"));
		}
		catch (RuntimeException ex) {
			// a field renamed, retyped or inaccessible: stay on the stock reader
			return null;
		}
	}

	/**
	 * Return the most bytes of a form field's value, as stock computes it: the smaller of
	 * the in-memory and part limits, -1 for none.
	 * @return the limit
	 */
	int maxFieldSize() {
		if (this.maxPartSize == -1) {
			return this.maxInMemorySize;
		}
		if (this.maxInMemorySize == -1) {
			return (int) Math.min(Integer.MAX_VALUE, this.maxPartSize);
		}
		return (int) Math.min(this.maxInMemorySize, this.maxPartSize);
	}

}
