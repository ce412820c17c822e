package io.fastpath.json;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.async.ByteArrayFeeder;
import tools.jackson.databind.ObjectReader;

/**
 * One non-blocking parser for the regions of a stream of scalar elements, fed one region
 * after the other, as stock feeds one parser the whole stream. A parser created for each
 * region costs a deserialization context, a buffer recycler taken from the pool and given
 * back, and buffers of its own: more than reading the few values of a chunk of a few
 * dozen bytes ({@code Flux<Long>} sent value by value). Fed, the non-blocking parser reads
 * larger regions no slower than a blocking parser created on each (figures in
 * docs/how-it-works.md, "Measurements behind the design").
 * <p>A region is an array, from its opening bracket. Its end is the end of input, as for a
 * parser created on it ({@link #nextToken}). The parser is kept for the next region only
 * when it read the region's array to its closing bracket and nothing but whitespace follows
 * ({@link #endsRegion}); otherwise (an error, a value cut by the end, a region left
 * unread) the next region gets a new one.
 *
 * @author Fastpath
 */
final class FedParser {

	private final ObjectReader reader;

	private @Nullable JsonParser parser;

	private byte[] bytes = {};

	private int regionStart;

	private int regionEnd;

	/** The parser's location of the current region's first byte. */
	private long regionLocation;

	/** Where the region's array closes, once found (a location costs an allocation), or -1. */
	private int closingBracket;

	/** Whether the current region was read to its end ({@link #endsRegion}). */
	private boolean regionRead;

	FedParser(ObjectReader reader) {
		this.reader = reader;
	}

	/**
	 * Feed a region to the parser.
	 * @param bytes holds the region, which starts with an opening bracket
	 * @return the parser, on the region's opening bracket
	 */
	JsonParser feed(byte[] bytes, int offset, int length) {
		JsonParser parser = this.parser;
		if (parser == null) {
			parser = this.reader.createNonBlockingByteArrayParser();
			this.parser = parser;
		}
		this.regionRead = false;
		this.closingBracket = -1;
		this.bytes = bytes;
		this.regionStart = offset;
		this.regionEnd = offset + length;
		feeder(parser).feedInput(bytes, offset, offset + length);
		parser.nextToken();
		// Locations, not token offsets: the non-blocking parser gives a closing bracket the
		// token offset of the value before it.
		this.regionLocation = parser.currentLocation().getByteOffset() - 1;
		return parser;
	}

	/**
	 * The next token of the region, the end of its bytes being the end of input: a number
	 * that reaches it ends there, and a structure open there is an error, as for a parser
	 * created on the region. The parser is not fed again after such an end.
	 */
	static @Nullable JsonToken nextToken(JsonParser parser) {
		JsonToken token = parser.nextToken();
		if (token != JsonToken.NOT_AVAILABLE) {
			return token;
		}
		feeder(parser).endOfInput();
		return parser.nextToken();
	}

	/**
	 * Where the closing bracket of the region's array is, once the parser read it.
	 * @return its index in the region's bytes
	 */
	int closingBracket() {
		if (this.closingBracket < 0) {
			JsonParser parser = this.parser;
			if (parser == null || !parser.hasToken(JsonToken.END_ARRAY)) {
				throw new IllegalStateException("Not at the end of the region's array");
			}
			this.closingBracket = this.regionStart
					+ (int) (parser.currentLocation().getByteOffset() - this.regionLocation) - 1;
		}
		return this.closingBracket;
	}

	/**
	 * Tell, once the region's array closed, whether no more than whitespace follows it in
	 * the region: only then is the parser kept for the next one.
	 * @return whether the region was read to its end
	 */
	boolean endsRegion() {
		int i = closingBracket() + 1;
		while (i < this.regionEnd && JsonElementSplitter.isWhitespace(this.bytes[i])) {
			i++;
		}
		JsonParser parser = this.parser;
		// The parser takes the whitespace, before the next region is fed.
		this.regionRead = (i == this.regionEnd) && parser != null && parser.nextToken() == JsonToken.NOT_AVAILABLE;
		return this.regionRead;
	}

	/** Finish a region: keep the parser if the region was read to its end, drop it otherwise. */
	void finish() {
		if (!this.regionRead) {
			close();
		}
	}

	/** Close the parser, at the end of the stream or after an error. */
	void close() {
		JsonParser parser = this.parser;
		this.parser = null;
		if (parser != null) {
			parser.close();
		}
	}

	private static ByteArrayFeeder feeder(JsonParser parser) {
		return (ByteArrayFeeder) parser.nonBlockingInputFeeder();
	}

}
