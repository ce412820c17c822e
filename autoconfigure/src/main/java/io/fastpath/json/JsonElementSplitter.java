package io.fastpath.json;

import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;

/**
 * Splits a JSON stream arriving in chunks into complete elements, as Spring's stock
 * tokenizer does for a {@code Flux}: the values of a top-level array, and top-level
 * values that are not arrays (a single object, newline-delimited JSON). Instead of copying
 * every token of every element into a {@code TokenBuffer}, it only finds where elements
 * end (strings, escapes and nesting aware) and hands the bytes of all elements completed
 * by a chunk to a {@link Regions} handler at once, so that one parser reads them.
 * <p>Bytes are kept in one growing array: an element cut by a chunk boundary is carried to
 * the next chunk, and elements completed in the same chunk are handed over as
 * {@code [e1, e2, ...]} (the splitter writes the brackets over bytes it no longer needs),
 * so a plain blocking parser reads them without another copy. Jackson checks the content
 * of each element; this class checks what lies between them, where Jackson cannot see.
 * <p>Finding the ends of elements is a second pass over bytes that the parser reads
 * anyway, so a splitter created to read ahead offers the handler's parser, once per
 * chunk, to read the values of a top-level array ahead
 * ({@link Regions#leadingArrayValues}), as far as they are surely complete, and scans
 * only what it left: usually the last values of the chunk.
 * <p>Not thread-safe: one instance per decoded stream, fed serially.
 *
 * @author Fastpath
 */
final class JsonElementSplitter {

	/** Receives the bytes of complete elements. */
	interface Regions {

		/**
		 * Called with {@code [e1, e2, ...]}: the values of a top-level array.
		 * @param bytes the bytes
		 * @param offset where the opening bracket is
		 * @param length the length up to and including the closing bracket
		 */
		void arrayValues(byte[] bytes, int offset, int length);

		/**
		 * Called with top-level values separated by whitespace.
		 * @param bytes the bytes
		 * @param offset where the first value starts
		 * @param length the length up to the end of the last value
		 */
		void rootValues(byte[] bytes, int offset, int length);

		/**
		 * Called once per chunk, if the splitter reads ahead, where a value of a
		 * top-level array starts, with {@code [}, the values of the array completed
		 * before it in this chunk and not handed over yet, and the rest of the chunk:
		 * read values in order, as far as they are surely complete (followed by another
		 * token, so not cut by the chunk's end), or none, and say where the splitter goes
		 * on. This spares the splitter finding the ends of those values: the parser finds
		 * them anyway. The splitter goes on from there, and finds and checks everything
		 * else as usual. The bytes may be changed while reading, if they are restored.
		 * @param bytes the bytes
		 * @param offset where the opening bracket is
		 * @param length the length up to the end of the chunk
		 * @return where the splitter goes on: the start of the first value not read, or
		 * of the closing bracket after the last, or the end of the chunk if nothing but
		 * whitespace follows the comma after the last; {@code offset + 1} if none was read
		 */
		int leadingArrayValues(byte[] bytes, int offset, int length);

		/**
		 * Called with an element in progress that went over the limit, bracketed like
		 * {@link #arrayValues} when inside an array: throw the syntax error it holds, if
		 * any, which the stock tokenizer would have reported before the limit.
		 * @param bytes the bytes
		 * @param offset where the element (or its bracket) starts
		 * @param length the length of what arrived of it
		 */
		void checkIncomplete(byte[] bytes, int offset, int length);

	}

	/** Room kept in front of the carried bytes for the opening bracket. */
	private static final int HEADROOM = 1;

	private static final byte[] BYTE_ORDER_MARK = { (byte) 0xEF, (byte) 0xBB, (byte) 0xBF };

	private final int maxInMemorySize;

	/** Whether the regions' parser reads array values ahead. */
	private final boolean readsAhead;

	/** Whether the start of the stream was checked for a byte order mark. */
	private boolean startChecked;

	/** Whether the stream so far is a byte order mark and nothing else. */
	private boolean byteOrderMarkOnly;

	private byte[] bytes = new byte[1024];

	/** End of the valid bytes in {@link #bytes}. */
	private int size = HEADROOM;

	/** Stream offset of {@code bytes[HEADROOM]}, for error messages. */
	private long discarded;

	/** Whether we are inside a top-level array, whose values are the elements. */
	private boolean inArray;

	/** Inside a top-level array: what may come next outside an element. */
	private ArrayState arrayState = ArrayState.AFTER_OPEN;

	private int elementStart = -1;

	private ElementKind elementKind = ElementKind.STRUCTURE;

	private int depth;

	private boolean inString;

	private boolean escaped;

	/** Completed elements not handed over yet: where the first starts, where the last ends. */
	private int regionStart = -1;

	private int regionEnd;

	private boolean regionInArray;

	/** Opening and closing brackets of top-level arrays passed: tokens no element holds. */
	private long arrayTokenCount;

	/** Bytes of chunks in which no element completed, as the stock tokenizer counts them. */
	private long incompleteByteCount;

	private boolean completedInChunk;

	/** Whether the values of this chunk may still be read ahead by the regions' parser. */
	private boolean readAheadInChunk;

	/**
	 * Create a splitter.
	 * @param maxInMemorySize the limit on the bytes of one element, or -1 for none
	 * @param readsAhead whether to offer the regions' parser to read array values ahead
	 * ({@link Regions#leadingArrayValues}), once per chunk
	 */
	JsonElementSplitter(int maxInMemorySize, boolean readsAhead) {
		this.maxInMemorySize = maxInMemorySize;
		this.readsAhead = readsAhead;
	}

	/**
	 * Take a chunk, and hand over the elements it completes. The chunk is released when
	 * this returns or throws.
	 * @param chunk the next bytes of the stream
	 * @param regions receives the bytes of complete elements
	 * @throws DecodingException if the bytes between elements are not valid JSON
	 * @throws DataBufferLimitException if an element grows beyond the limit
	 */
	void feed(DataBuffer chunk, Regions regions) {
		int length = chunk.readableByteCount();
		try {
			ensureCapacity(length);
			chunk.read(this.bytes, this.size, length);
		}
		finally {
			DataBufferUtils.release(chunk);
		}
		take(length, regions);
	}

	private void take(int length, Regions regions) {
		int from = this.size;
		this.size += length;
		this.completedInChunk = false;
		this.readAheadInChunk = this.readsAhead;
		if (length > 0) {
			this.byteOrderMarkOnly = false;
		}
		if (!this.startChecked) {
			from = skipByteOrderMark(false);
			if (from < 0) {
				// The mark's bytes count toward the limit, as stock counts them.
				checkLimit(length, regions);
				return;
			}
		}
		scan(from, regions);
		flush(regions);
		checkLimit(length, regions);
		compact();
	}

	/**
	 * Signal the end of the stream, and hand over the last element if it was a scalar
	 * that only the end delimits.
	 * @param regions receives the bytes of complete elements
	 * @throws DecodingException if the stream ends inside a value or an array
	 */
	void end(Regions regions) {
		if (!this.startChecked) {
			scan(skipByteOrderMark(true), regions);
		}
		if (this.byteOrderMarkOnly) {
			// As the stock tokenizer, which is still reading the mark as a token.
			throw error("Unexpected end-of-input: was expecting rest of token", this.size);
		}
		if (this.elementStart >= 0) {
			if (this.elementKind != ElementKind.SCALAR) {
				throw error("Unexpected end-of-input within a value", this.size);
			}
			complete(this.size);
		}
		if (this.inArray) {
			throw error("Unexpected end-of-input: expected close marker for Array", this.size);
		}
		flush(regions);
	}

	/**
	 * Whether nothing was fed yet, so that a first chunk holding a whole top-level array
	 * may be read without the splitter ({@link #skipArray}).
	 * @return whether the splitter is at the start of the stream
	 */
	boolean atStart() {
		return !this.startChecked && this.size == HEADROOM && this.discarded == 0;
	}

	/**
	 * Pass over a top-level array read without the splitter, the first bytes of the stream:
	 * what follows is split as what follows any top-level array.
	 * @param length the length of the array, with any whitespace around it
	 */
	void skipArray(int length) {
		this.startChecked = true;
		this.discarded += length;
		this.arrayTokenCount += 2;
	}

	/**
	 * How many tokens the brackets of top-level arrays made so far: with the tokens of the
	 * elements, the tokens of the stream, as one parser would count them.
	 * @return the count
	 */
	long arrayTokenCount() {
		return this.arrayTokenCount;
	}

	/**
	 * Scan bytes from the given index. Each state has its own tight loop, because this
	 * pass over the bytes is all the splitter adds to the parse.
	 */
	private void scan(int from, Regions regions) {
		byte[] bytes = this.bytes;
		int end = this.size;
		int i = from;
		while (i < end) {
			if (this.elementStart >= 0) {
				i = (this.elementKind == ElementKind.SCALAR) ? scanScalar(bytes, i, end, regions)
						: scanStructure(bytes, i, end);
				continue;
			}
			byte b = bytes[i];
			if (isWhitespace(b)) {
				i++;
				continue;
			}
			// Only where a value may start. A byte below 0x20 (a control character, or not
			// ASCII) is for start() to reject: after the '[' written before it, it would make
			// Jackson guess UTF-16 or UTF-32.
			if (this.readAheadInChunk && this.inArray && this.arrayState != ArrayState.AFTER_VALUE && b >= 0x20
					&& b != ']' && b != ',') {
				this.readAheadInChunk = false;
				int next = readAhead(i, regions);
				if (next > i) {
					i = next;
					continue;
				}
			}
			separatorOrStart(b, i, regions);
			i++;
		}
	}

	/**
	 * Let the regions' parser read the values from the one starting at the given index,
	 * together with the values completed before it in this chunk, not handed over yet:
	 * what it reads is complete and well separated, so it counts as scanned.
	 * @return where to go on scanning
	 */
	private int readAhead(int valueStart, Regions regions) {
		int from = (this.regionStart >= 0) ? this.regionStart : valueStart;
		int bracket = from - 1;
		byte before = this.bytes[bracket];
		this.bytes[bracket] = '[';
		int next;
		try {
			next = regions.leadingArrayValues(this.bytes, bracket, this.size - bracket);
		}
		finally {
			this.bytes[bracket] = before;
		}
		if (next < valueStart) {
			// Stopped within the values completed before: the rest of them are still to go.
			this.regionStart = next;
			return valueStart;
		}
		this.regionStart = -1;
		if (next > valueStart) {
			this.completedInChunk = true;
			this.arrayState = afterLastValue(next) ? ArrayState.AFTER_VALUE : ArrayState.AFTER_COMMA;
		}
		return next;
	}

	/**
	 * Whether reading ahead stopped at the closing bracket right after the last value it
	 * read, rather than after a comma: at a value, or at a bracket that the splitter
	 * rejects after a comma (which the parser did not see when it read up to the comma).
	 */
	private boolean afterLastValue(int next) {
		if (next == this.size || this.bytes[next] != ']') {
			return false;
		}
		int before = next - 1;
		while (isWhitespace(this.bytes[before])) {
			before--;
		}
		return this.bytes[before] != ',';
	}

	/** Scan a number or literal up to its delimiter, which is looked at again as a separator. */
	private int scanScalar(byte[] bytes, int from, int end, Regions regions) {
		int i = from;
		if (this.inArray) {
			while (i < end && !SCALAR_DELIMITERS[bytes[i] & 0xFF]) {
				i++;
			}
			if (i < end) {
				complete(i);
			}
			return i;
		}
		// Top level, as the stock tokenizer (Jackson's non-blocking parser): an integer ends
		// at any delimiter, and at a '-' after a digit ("1-2" is two numbers); a number with
		// a fraction or an exponent needs whitespace after it; a literal needs whitespace
		// or a string after it ("true\"x\"" is two values).
		boolean literal = isLetter(bytes[this.elementStart]);
		while (i < end && !SCALAR_DELIMITERS[bytes[i] & 0xFF]
				&& (literal || bytes[i] != '-' || !isDigit(bytes[i - 1]))) {
			i++;
		}
		if (i < end) {
			boolean spaced = isWhitespace(bytes[i]);
			if (!literal && bytes[i] > '9' && bytes[i] != ']' && bytes[i] != '}'
					&& isZero(bytes, this.elementStart, i)) {
				// Jackson's own rule for a leading zero, where the delimiter rule above would
				// split: "0[1]" is an error, "5[1]" two values.
				throw error("Unexpected character ('" + (char) bytes[i]
						+ "') in numeric value: expected digit (0-9), decimal point (.) or exponent indicator (e/E) to follow '0'",
						i);
			}
			if (!spaced && (literal ? bytes[i] != '"' : isFloatingPoint(bytes, this.elementStart, i))) {
				throw error("Unexpected character ('" + (char) bytes[i]
						+ "'): expected space separating root-level values", i);
			}
			complete(i);
			if (!spaced) {
				// Jackson reads values of one region with one parser, which wants a space.
				flush(regions);
			}
		}
		return i;
	}

	/** Whether the bytes are "0" or "-0". */
	private static boolean isZero(byte[] bytes, int start, int end) {
		int digit = (bytes[start] == '-') ? start + 1 : start;
		return digit == end - 1 && bytes[digit] == '0';
	}

	private static boolean isFloatingPoint(byte[] bytes, int start, int end) {
		for (int i = start; i < end; i++) {
			byte b = bytes[i];
			if (b == '.' || b == 'e' || b == 'E') {
				return true;
			}
		}
		return false;
	}

	/**
	 * Skip a UTF-8 byte order mark at the start of the stream, as Jackson does, even when
	 * it is cut by chunks.
	 * @param ended whether no more bytes will come
	 * @return where to scan from, or -1 to wait for more bytes
	 */
	private int skipByteOrderMark(boolean ended) {
		int available = this.size - HEADROOM;
		int matched = 0;
		while (matched < BYTE_ORDER_MARK.length && matched < available
				&& this.bytes[HEADROOM + matched] == BYTE_ORDER_MARK[matched]) {
			matched++;
		}
		if (matched == available && matched < BYTE_ORDER_MARK.length && !ended) {
			return -1;
		}
		this.startChecked = true;
		if (matched == BYTE_ORDER_MARK.length) {
			this.byteOrderMarkOnly = (available == matched);
			return HEADROOM + matched;
		}
		return HEADROOM;
	}

	/** Scan an object, array or string element, strings and escapes aware. */
	private int scanStructure(byte[] bytes, int from, int end) {
		int i = from;
		int depth = this.depth;
		boolean inString = this.inString;
		boolean escaped = this.escaped;
		try {
			while (i < end) {
				if (inString) {
					if (escaped) {
						escaped = false;
						i++;
						continue;
					}
					byte b = bytes[i];
					while (b != '"' && b != '\\') {
						if (++i == end) {
							return i;
						}
						b = bytes[i];
					}
					i++;
					if (b == '\\') {
						escaped = true;
						continue;
					}
					inString = false;
					if (this.elementKind == ElementKind.STRING) {
						complete(i);
						return i;
					}
					continue;
				}
				byte b = bytes[i++];
				if (b == '"') {
					inString = true;
				}
				else if (b == '{' || b == '[') {
					depth++;
				}
				else if ((b == '}' || b == ']') && --depth == 0) {
					complete(i);
					return i;
				}
			}
			return i;
		}
		finally {
			this.depth = depth;
			this.inString = inString;
			this.escaped = escaped;
		}
	}

	/** Handle a byte outside any element: a separator, or the first byte of an element. */
	private void separatorOrStart(byte b, int i, Regions regions) {
		if (!this.inArray) {
			if (b == '[') {
				// Values before the array are handed over before the array's.
				flush(regions);
				this.inArray = true;
				this.arrayTokenCount++;
				this.arrayState = ArrayState.AFTER_OPEN;
			}
			else if (b == ']' || b == '}' || b == ',' || b == ':') {
				throw error("Unexpected character ('" + (char) b + "')", i);
			}
			else {
				start(b, i);
			}
			return;
		}
		if (b == ',') {
			if (this.arrayState != ArrayState.AFTER_VALUE) {
				throw error("Unexpected character (','): expected a value", i);
			}
			this.arrayState = ArrayState.AFTER_COMMA;
		}
		else if (b == ']') {
			if (this.arrayState == ArrayState.AFTER_COMMA) {
				throw error("Unexpected character (']'): expected a value", i);
			}
			this.inArray = false;
			this.arrayTokenCount++;
			// The array's values are handed over before any value after it.
			flush(regions);
		}
		else if (this.arrayState == ArrayState.AFTER_VALUE) {
			throw error("Unexpected character ('" + (char) b + "'): was expecting comma to separate Array entries", i);
		}
		else {
			start(b, i);
		}
	}

	private void start(byte b, int i) {
		if (b < 0x20) {
			// Not ASCII (b < 0), or a control character: no JSON value starts so. Said here,
			// because a parser skips a byte order mark at the start of what it is given.
			throw error("Unexpected character (code " + (b & 0xFF) + "): expected a valid value", i);
		}
		this.elementStart = i;
		this.escaped = false;
		if (b == '{' || b == '[') {
			this.elementKind = ElementKind.STRUCTURE;
			this.depth = 1;
			this.inString = false;
		}
		else if (b == '"') {
			this.elementKind = ElementKind.STRING;
			this.depth = 0;
			this.inString = true;
		}
		else {
			this.elementKind = ElementKind.SCALAR;
			this.depth = 0;
			this.inString = false;
		}
	}

	private void complete(int end) {
		if (this.regionStart < 0) {
			this.regionStart = this.elementStart;
			this.regionInArray = this.inArray;
		}
		this.regionEnd = end;
		this.elementStart = -1;
		this.completedInChunk = true;
		if (this.inArray) {
			this.arrayState = ArrayState.AFTER_VALUE;
		}
	}

	/** Hand over the completed elements, if any. */
	private void flush(Regions regions) {
		int start = this.regionStart;
		if (start < 0) {
			return;
		}
		int end = this.regionEnd;
		this.regionStart = -1;
		if (!this.regionInArray) {
			regions.rootValues(this.bytes, start, end - start);
			return;
		}
		// Bytes before the first element are separators already checked: one can hold '['.
		// The byte after the last element may still be needed, so it is put back.
		byte after = this.bytes[end];
		this.bytes[start - 1] = '[';
		this.bytes[end] = ']';
		try {
			regions.arrayValues(this.bytes, start - 1, end - start + 2);
		}
		finally {
			this.bytes[end] = after;
		}
	}

	/**
	 * Fail like the stock tokenizer: on the bytes of chunks in which no element completed,
	 * counted since the last chunk that completed one.
	 */
	private void checkLimit(int chunkLength, Regions regions) {
		if (this.maxInMemorySize < 0) {
			return;
		}
		if (this.completedInChunk) {
			this.incompleteByteCount = 0;
			return;
		}
		this.incompleteByteCount += chunkLength;
		if (this.incompleteByteCount > this.maxInMemorySize) {
			int start = this.elementStart;
			if (start >= 0) {
				int offset = this.inArray ? start - 1 : start;
				if (this.inArray) {
					this.bytes[offset] = '[';
				}
				// A token cut at the end that may still become valid ("tr" of "true", "1." of
				// "1.5") is not an error yet, though Jackson would call it one: leave it out.
				int lastToken = this.size;
				while (lastToken > start && !SCALAR_DELIMITERS[this.bytes[lastToken - 1] & 0xFF]) {
					lastToken--;
				}
				int checked = isTokenPrefix(this.bytes, lastToken, this.size) ? lastToken : this.size;
				regions.checkIncomplete(this.bytes, offset, checked - offset);
			}
			throw new DataBufferLimitException(
					"Exceeded limit on max bytes per JSON object: " + this.maxInMemorySize);
		}
	}

	/**
	 * Whether the bytes may be the start of a JSON number or literal: a prefix of
	 * {@code true}, {@code false} or {@code null}, or of {@code -?(0|[1-9]\d*)(\.\d*)?([eE][+-]?\d*)?}.
	 */
	static boolean isTokenPrefix(byte[] bytes, int from, int to) {
		if (from == to) {
			return true;
		}
		byte first = bytes[from];
		if (isLetter(first)) {
			return isPrefixOf(bytes, from, to, "true") || isPrefixOf(bytes, from, to, "false")
					|| isPrefixOf(bytes, from, to, "null");
		}
		int i = from;
		if (bytes[i] == '-') {
			i++;
		}
		if (i < to && bytes[i] == '0') {
			i++;
		}
		else {
			while (i < to && isDigit(bytes[i])) {
				i++;
			}
		}
		if (i < to && bytes[i] == '.') {
			i++;
			while (i < to && isDigit(bytes[i])) {
				i++;
			}
		}
		if (i < to && (bytes[i] == 'e' || bytes[i] == 'E')) {
			i++;
			if (i < to && (bytes[i] == '+' || bytes[i] == '-')) {
				i++;
			}
			while (i < to && isDigit(bytes[i])) {
				i++;
			}
		}
		return i == to;
	}

	private static boolean isPrefixOf(byte[] bytes, int from, int to, String literal) {
		if (to - from > literal.length()) {
			return false;
		}
		for (int i = from; i < to; i++) {
			if (bytes[i] != literal.charAt(i - from)) {
				return false;
			}
		}
		return true;
	}

	/** Keep only the bytes of the element in progress, at the front. */
	private void compact() {
		int keepFrom = (this.elementStart >= 0) ? this.elementStart : this.size;
		int kept = this.size - keepFrom;
		if (keepFrom > HEADROOM) {
			System.arraycopy(this.bytes, keepFrom, this.bytes, HEADROOM, kept);
			this.discarded += keepFrom - HEADROOM;
			if (this.elementStart >= 0) {
				this.elementStart = HEADROOM;
			}
			this.size = HEADROOM + kept;
		}
	}

	private void ensureCapacity(int length) {
		// One spare byte after the data, for the closing bracket.
		long needed = (long) this.size + length + 1;
		if (needed > this.bytes.length) {
			if (needed > Integer.MAX_VALUE - 8) {
				throw new DataBufferLimitException("JSON element too large to buffer");
			}
			byte[] grown = new byte[(int) Math.max(needed, Math.min((long) this.bytes.length * 2, Integer.MAX_VALUE - 8))];
			System.arraycopy(this.bytes, 0, grown, 0, this.size);
			this.bytes = grown;
		}
	}

	private DecodingException error(String message, int index) {
		long offset = this.discarded + index - HEADROOM;
		return new DecodingException("JSON decoding error: " + message + " at byte offset " + offset);
	}

	private static boolean isDigit(byte b) {
		return b >= '0' && b <= '9';
	}

	private static boolean isLetter(byte b) {
		return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z');
	}

	/** Whether the byte is JSON whitespace (RFC 8259): space, tab, line feed, carriage return. */
	static boolean isWhitespace(byte b) {
		return b == ' ' || b == '\n' || b == '\r' || b == '\t';
	}

	/** Bytes that end a number or literal; anything else is part of it (Jackson judges it). */
	private static final boolean[] SCALAR_DELIMITERS = new boolean[256];

	static {
		for (char c : " \n\r\t,]}[{\":".toCharArray()) {
			SCALAR_DELIMITERS[c] = true;
		}
	}

	private enum ArrayState {

		/** After '[': a value or ']'. */
		AFTER_OPEN,

		/** After ',': a value. */
		AFTER_COMMA,

		/** After a value: ',' or ']'. */
		AFTER_VALUE

	}

	private enum ElementKind {

		/** An object or array: ends where its depth returns to zero. */
		STRUCTURE,

		/** A string: ends at its closing quote. */
		STRING,

		/** A number or literal: ends at the next delimiter, or at the end of the stream. */
		SCALAR

	}

}
