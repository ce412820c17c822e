package io.fastpath.json;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.base.ParserBase;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.core.exc.UnexpectedEndOfInputException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MappingIterator;
import tools.jackson.databind.ObjectReader;

import org.springframework.core.codec.CodecException;
import org.springframework.core.codec.Hints;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;

/**
 * Reads the elements of a {@code Flux} from the regions a {@link JsonElementSplitter}
 * hands over: scalars with one parser fed region after region ({@link FedParser}), other
 * elements with a parser per region, and values read ahead of the splitter where they are
 * surely complete. One per stream, fed serially, so it keeps the values of the current
 * step in a field; closed from any thread when the stream terminates.
 *
 * @author Fastpath
 */
final class JsonElementReader implements JsonElementSplitter.Regions {

	/** Marks that no element value is waiting to be taken. */
	private static final Object NO_VALUE = new Object();

	/** Most bytes at the end of a chunk that reading ahead leaves to the splitter. */
	private static final int MAX_READ_AHEAD_MARGIN = 16 * 1024;

	/** No chunk is being read. */
	private static final int IDLE = 0;

	/** A chunk or the end is being read. */
	private static final int READING = 1;

	/** Closed while a chunk was read: the reading thread closes the fed parser. */
	private static final int CLOSING = 2;

	/** Closed: the fed parser is closed, and nothing more is read. */
	private static final int CLOSED = 3;

	private final ObjectReader reader;

	private final ScalarKind scalarKind;

	private final @Nullable Map<String, Object> hints;

	private final Log logger;

	private final UnaryOperator<RuntimeException> rejected;

	/** {@link #IDLE}, {@link #READING}, {@link #CLOSING} or {@link #CLOSED}. */
	private final AtomicInteger state = new AtomicInteger(IDLE);

	/** Told when the reader, a twin's, fails where the application's mapper may not. */
	private final @Nullable Consumer<Throwable> twinFailed;

	private final boolean unwrapsRootValues;

	/** Checked once per stream: the check is not free and elements are many. */
	private final boolean logsValues;

	/** The mapper's limits, which apply to the whole stream, as to stock's one parser. */
	private final StreamReadConstraints constraints;

	/** Bytes fed before the current chunk, if the document length is limited. */
	private long documentLength;

	/** The body's announced length, or -1 if unknown. */
	private final long contentLength;

	/** Bytes fed so far, if the body's length is known. */
	private long received;

	/** Whether the current chunk brings the body to its announced length. */
	private boolean completesBody;

	/** Tokens of the values taken, if the token count is limited. */
	private long valueTokenCount;

	/**
	 * The parser of the regions of scalars, or {@code null} if each region gets its
	 * own: elements that are not scalars (a region holds few of them, and reading them
	 * outweighs a parser's creation), or limits that the fed parser would count against
	 * bytes and tokens it is fed more than once (values read ahead and not taken are fed
	 * again).
	 */
	private final @Nullable FedParser fedParser;

	/** Largest distance between the starts of two values read ahead, separators included. */
	private int largestValue;

	/** How many values the last step that completed any completed. */
	private int lastValueCount;

	/** Values completed by the current splitter step; created on the first one. */
	private @Nullable List<Object> values;

	/**
	 * Create a reader for one stream.
	 * @param reader reads the elements
	 * @param scalarKind the elements' scalar type, if they are one
	 * @param hints the decoding hints, with the body's length if known
	 * @param logger the decoder's logger, which values are logged to at debug level
	 * @param rejected the exception to fail the stream with for one raised reading it
	 * @param twinFailed told when the reader, a twin's, fails where the application's
	 * mapper may not, or {@code null} if it is not a twin's
	 */
	JsonElementReader(ObjectReader reader, ScalarKind scalarKind, @Nullable Map<String, Object> hints, Log logger,
			UnaryOperator<RuntimeException> rejected, @Nullable Consumer<Throwable> twinFailed) {
		this.reader = reader;
		this.logger = logger;
		this.rejected = rejected;
		this.twinFailed = twinFailed;
		this.scalarKind = scalarKind;
		this.hints = hints;
		this.unwrapsRootValues = reader.isEnabled(DeserializationFeature.UNWRAP_ROOT_VALUE);
		this.logsValues = logger.isDebugEnabled() && !Hints.isLoggingSuppressed(hints);
		this.constraints = reader.parserFactory().streamReadConstraints();
		Object contentLength = (hints != null) ? hints.get(FastpathJsonDecoder.CONTENT_LENGTH_HINT) : null;
		this.contentLength = (contentLength instanceof Long length) ? length : -1;
		this.fedParser = (scalarKind != ScalarKind.OTHER && !this.constraints.hasMaxDocumentLength()
				&& !this.constraints.hasMaxTokenCount()) ? new FedParser(reader) : null;
	}

	boolean knowsBodyLength() {
		return this.contentLength >= 0;
	}

	/** Feed a chunk to the splitter and return the elements it completed. */
	List<Object> feed(JsonElementSplitter splitter, DataBuffer chunk) {
		if (!startReading()) {
			DataBufferUtils.release(chunk);
			return Collections.emptyList();
		}
		try {
			return read(splitter, chunk);
		}
		finally {
			stopReading();
		}
	}

	private List<Object> read(JsonElementSplitter splitter, DataBuffer chunk) {
		try {
			checkDocumentLength(chunk);
			if (this.contentLength >= 0) {
				// Exactly: a body longer than announced (decoded on the way, say) has no last chunk.
				this.received += chunk.readableByteCount();
				this.completesBody = (this.received == this.contentLength);
				if (this.completesBody && splitter.atStart() && readWholeArray(chunk)) {
					splitter.skipArray(chunk.readableByteCount());
					DataBufferUtils.release(chunk);
					return takeValues();
				}
			}
			splitter.feed(chunk, this);
			checkTokenCount(splitter);
		}
		catch (RuntimeException | LinkageError ex) {
			closeFedParser();
			throw this.rejected.apply(twinFailure(ex));
		}
		return takeValues();
	}

	/** End the splitter's stream and return the last elements. */
	List<Object> end(JsonElementSplitter splitter) {
		if (!startReading()) {
			return Collections.emptyList();
		}
		try {
			return readEnd(splitter);
		}
		finally {
			stopReading();
		}
	}

	private List<Object> readEnd(JsonElementSplitter splitter) {
		try {
			if (this.constraints.hasMaxDocumentLength()) {
				// Stock's parser checks all it was fed once the input ends.
				this.constraints.validateDocumentLength(this.documentLength);
			}
			splitter.end(this);
			checkTokenCount(splitter);
		}
		catch (RuntimeException | LinkageError ex) {
			throw this.rejected.apply(twinFailure(ex));
		}
		finally {
			closeFedParser();
		}
		return takeValues();
	}

	/**
	 * The exception to fail the stream with: a failure of the twin's own is told (the
	 * next stream reads with the application's mapper) and answered as a codec error,
	 * never let out as a linkage error, which Reactor would throw rather than signal.
	 */
	private RuntimeException twinFailure(Throwable ex) {
		if (this.twinFailed != null && BlackbirdTwins.isTwinFailure(ex)) {
			this.twinFailed.accept(ex);
			return new CodecException("JSON decoding error: " + ex, ex);
		}
		if (ex instanceof RuntimeException runtime) {
			return runtime;
		}
		throw (Error) ex;
	}

	/** Whether a chunk or the end may be read: the stream was not closed. */
	private boolean startReading() {
		return this.state.compareAndSet(IDLE, READING);
	}

	/** Done reading: close the fed parser if the stream was closed meanwhile. */
	private void stopReading() {
		if (!this.state.compareAndSet(READING, IDLE)) {
			this.state.set(CLOSED);
			closeFedParser();
		}
	}

	/**
	 * Close the stream once it terminated, however: cancelled, failed upstream, or ended.
	 * Cancel may come from another thread while a chunk is read: the fed parser is then
	 * closed by the thread reading, once it is done with it; otherwise here, no chunk
	 * being read and none read after.
	 */
	void close() {
		while (true) {
			int current = this.state.get();
			if (current == IDLE && this.state.compareAndSet(IDLE, CLOSED)) {
				closeFedParser();
				return;
			}
			if (current == CLOSING || current == CLOSED
					|| (current == READING && this.state.compareAndSet(READING, CLOSING))) {
				return;
			}
		}
	}

	/**
	 * Close the fed parser, which gives its buffers back to the mapper's pool: at the end,
	 * on an error and when the stream is closed ({@link #close()}), never while another
	 * thread reads with it.
	 */
	private void closeFedParser() {
		if (this.fedParser != null) {
			this.fedParser.close();
		}
	}

	/**
	 * Read a body that arrived whole in one chunk, in place, with one parser, if it is
	 * one top-level array: no copy and no scan. Anything else (another shape, a syntax
	 * or value error, several top-level values) is left to the splitter, which reads the
	 * chunk as any other and fails as stock does; the values read are dropped then.
	 * @return whether the chunk was read
	 */
	private boolean readWholeArray(DataBuffer chunk) {
		if (this.constraints.hasMaxTokenCount() || !isOneArray(chunk)) {
			// The token limit is the whole stream's, which the splitter counts.
			return false;
		}
		int start = chunk.readPosition();
		JsonBody body = HeapBody.of(chunk);
		try (JsonParser parser = ((body != null) ? body : new StreamedBody(chunk)).parser(this.reader)) {
			parser.nextToken();
			JsonToken token = parser.nextToken();
			if (token == JsonToken.END_ARRAY) {
				// No element: the chunk counts toward the limit, as the splitter counts it.
				return dropValues(chunk, start);
			}
			ValueReading reading = new ValueReading(parser);
			for (; token != JsonToken.END_ARRAY; token = parser.nextToken()) {
				if (token == null) {
					return dropValues(chunk, start);
				}
				take(reading.read(token), reading.lastTokenCount);
			}
			// Another top-level value after the array ("[1][2]") is the splitter's.
			return (parser.nextToken() == null) || dropValues(chunk, start);
		}
		catch (RuntimeException ex) {
			// Wrong: the splitter reads the chunk again, and fails with stock's error.
			return dropValues(chunk, start);
		}
	}

	/**
	 * Drop the values read from the chunk, and leave it to the splitter, as it came.
	 * It is not read ahead again, so Databind runs on the values before an error twice
	 * at most (stock never runs it on them: it fails on the chunk's syntax first).
	 * @return {@code false}
	 */
	private boolean dropValues(DataBuffer chunk, int start) {
		this.values = null;
		this.completesBody = false;
		chunk.readPosition(start);
		return false;
	}

	/**
	 * Whether the chunk starts with {@code [} and ends with {@code ]}, around whitespace:
	 * checked before Databind runs on any of it.
	 */
	private static boolean isOneArray(DataBuffer chunk) {
		int first = chunk.readPosition();
		int last = chunk.writePosition() - 1;
		while (first <= last && JsonElementSplitter.isWhitespace(chunk.getByte(first))) {
			first++;
		}
		while (last > first && JsonElementSplitter.isWhitespace(chunk.getByte(last))) {
			last--;
		}
		return last > first && chunk.getByte(first) == '[' && chunk.getByte(last) == ']';
	}

	/**
	 * Hold the stream to the mapper's document length limit as stock's one parser does:
	 * on the bytes of the chunks before, when the next one arrives (and on all of them
	 * at the end). Each region's parser only sees its own bytes.
	 */
	private void checkDocumentLength(DataBuffer chunk) {
		if (this.constraints.hasMaxDocumentLength()) {
			try {
				this.constraints.validateDocumentLength(this.documentLength);
			}
			catch (StreamConstraintsException ex) {
				DataBufferUtils.release(chunk);
				throw ex;
			}
			this.documentLength += chunk.readableByteCount();
		}
	}

	/**
	 * Hold the stream to the mapper's token limit: its tokens are those of the values
	 * read and the brackets of top-level arrays. Checked once a chunk is read, before
	 * its values are emitted, as stock's tokenizer reads a whole chunk first.
	 */
	private void checkTokenCount(JsonElementSplitter splitter) {
		if (this.constraints.hasMaxTokenCount()) {
			this.constraints.validateTokenCount(this.valueTokenCount + splitter.arrayTokenCount());
		}
	}

	private List<Object> takeValues() {
		List<Object> completed = this.values;
		this.values = null;
		if (completed == null) {
			return Collections.emptyList();
		}
		this.lastValueCount = completed.size();
		return completed;
	}

	@Override
	public void arrayValues(byte[] bytes, int offset, int length) {
		FedParser fed = this.fedParser;
		if (fed == null) {
			try (JsonParser parser = this.reader.createParser(bytes, offset, length)) {
				parser.nextToken();
				readArrayValues(parser);
			}
			return;
		}
		try {
			if (readArrayValues(fed.feed(bytes, offset, length))) {
				fed.endsRegion();
			}
		}
		finally {
			fed.finish();
		}
	}

	@Override
	public void rootValues(byte[] bytes, int offset, int length) {
		try (JsonParser parser = this.reader.createParser(bytes, offset, length)) {
			ValueReading reading = new ValueReading(parser);
			JsonToken token;
			while ((token = parser.nextToken()) != null) {
				take(reading.read(token), reading.lastTokenCount);
			}
		}
	}

	/**
	 * Read the values of the array whose opening bracket the parser is on.
	 * @return whether the array's closing bracket was read
	 */
	private boolean readArrayValues(JsonParser parser) {
		ValueReading reading = new ValueReading(parser);
		JsonToken token;
		while ((token = FedParser.nextToken(parser)) != null && token != JsonToken.END_ARRAY) {
			take(reading.read(token), reading.lastTokenCount);
		}
		return token == JsonToken.END_ARRAY;
	}

	@Override
	public void checkIncomplete(byte[] bytes, int offset, int length) {
		try (JsonParser parser = this.reader.createParser(bytes, offset, length)) {
			while (parser.nextToken() != null) {
				// Only looking for a syntax error before the end.
			}
		}
		catch (StreamReadException ex) {
			// At the end it is a token cut short ("tr" of "true"): the limit is the error.
			TokenStreamLocation location = ex.getLocation();
			if (!(ex instanceof UnexpectedEndOfInputException)
					&& (location == null || location.getByteOffset() < length)) {
				throw ex;
			}
		}
	}

	private List<Object> values() {
		if (this.values == null) {
			// Chunks of a stream tend to hold as many values as the one before.
			this.values = new ArrayList<>(Math.max(10, this.lastValueCount));
		}
		return this.values;
	}

	@Override
	public int leadingArrayValues(byte[] bytes, int offset, int length) {
		boolean endsArray = endsArray(bytes, offset, length);
		if (this.scalarKind == ScalarKind.OTHER) {
			// The body is complete and ends the array: no value in it is cut.
			return (this.completesBody && endsArray) ? readAhead(bytes, offset, length, length) : offset + 1;
		}
		if (endsArray) {
			// The chunk seems to hold the rest of the array.
			return readAhead(bytes, offset, length, length);
		}
		if (this.scalarKind.isNumberOrLiteral()) {
			// Numbers and literals hold no comma: the values before the chunk's last comma
			// are complete, and read as an array closed there, the parser never runs into
			// the end of the chunk.
			int comma = lastComma(bytes, offset, length);
			if (comma < 0) {
				return offset + 1;
			}
			bytes[comma] = ']';
			try {
				int resumeAt = readAhead(bytes, offset, comma + 1 - offset, Integer.MAX_VALUE);
				return (resumeAt == comma) ? skipWhitespace(bytes, comma + 1, offset + length) : resumeAt;
			}
			finally {
				bytes[comma] = ',';
			}
		}
		// A value near the end may be cut, and a parser that runs into the end throws,
		// which costs more than the splitter scanning the last few values: stop before.
		int stopAt = length - readAheadMargin();
		return (stopAt > 1) ? readAhead(bytes, offset, length, stopAt) : offset + 1;
	}

	/**
	 * Read the values of {@code [v1, v2, ...} that start before {@code stopAt}, each
	 * once the token after it is read.
	 * @return where the first value not taken starts, or the closing bracket
	 */
	private int readAhead(byte[] bytes, int offset, int length, int stopAt) {
		// Only a region read to its end is fed: the fed parser must take all of it.
		FedParser fed = (stopAt >= length) ? this.fedParser : null;
		if (fed == null) {
			try (JsonParser parser = this.reader.createParser(bytes, offset, length)) {
				parser.nextToken();
				return readAhead(parser, offset, stopAt, null);
			}
			catch (RuntimeException ex) {
				// No parser on the region: the splitter scans it.
				return offset + 1;
			}
		}
		try {
			return readAhead(fed.feed(bytes, offset, length), offset, stopAt, fed);
		}
		finally {
			fed.finish();
		}
	}

	/**
	 * Read ahead with the given parser, on the region's opening bracket.
	 * @param fed the fed parser if it is the one, which stops before a structure: a
	 * structure cut by the end of the region would have Databind ask the non-blocking
	 * parser for tokens it has not got (and {@code skipChildren} loop on them)
	 */
	private int readAhead(JsonParser parser, int offset, int stopAt, @Nullable FedParser fed) {
		int resumeAt = offset + 1;
		try {
			if (!(parser instanceof ParserBase tokens)) {
				return resumeAt;
			}
			// Token offsets without allocating a location per token: the parser's
			// offset of a token, from that of the opening bracket at the region's start
			// (a fed parser counts from the stream's first region).
			long bracketOffset = tokens.getTokenCharacterOffset();
			ValueReading reading = new ValueReading(parser);
			// A value is taken once the token after it is read: a number or literal that
			// reaches the end of the chunk may go on in the next one.
			Object pending = NO_VALUE;
			long pendingTokenCount = 0;
			int pendingStart = -1;
			JsonToken token = FedParser.nextToken(parser);
			while (token != null) {
				int start = (int) (tokens.getTokenCharacterOffset() - bracketOffset);
				if (fed != null && token == JsonToken.END_ARRAY) {
					// A fed parser gives the bracket the token offset of the value before.
					start = fed.closingBracket() - offset;
					fed.endsRegion();
				}
				take(pending, pendingTokenCount);
				if (pendingStart >= 0) {
					this.largestValue = Math.max(this.largestValue, start - pendingStart);
				}
				resumeAt = offset + start;
				if (token == JsonToken.END_ARRAY || start >= stopAt || (fed != null && token.isStructStart())) {
					break;
				}
				pending = reading.read(token);
				pendingTokenCount = reading.lastTokenCount;
				pendingStart = start;
				token = FedParser.nextToken(parser);
			}
		}
		catch (RuntimeException ex) {
			// Cut by the end of the chunk, or wrong: the splitter goes on from the value
			// not taken, finds its end, and has it read again, failing then if it is wrong.
		}
		return resumeAt;
	}

	/** Where the first byte from the index that is not whitespace is, or the end. */
	private static int skipWhitespace(byte[] bytes, int from, int end) {
		int i = from;
		while (i < end && JsonElementSplitter.isWhitespace(bytes[i])) {
			i++;
		}
		return i;
	}

	/** Where the last comma of the chunk after its opening bracket is, or -1. */
	private static int lastComma(byte[] bytes, int offset, int length) {
		for (int i = offset + length - 1; i > offset; i--) {
			if (bytes[i] == ',') {
				return i;
			}
		}
		return -1;
	}

	/** Room left at the end of a chunk: twice the largest value seen, within bounds. */
	private int readAheadMargin() {
		return Math.min(2 * this.largestValue + 16, MAX_READ_AHEAD_MARGIN);
	}

	/** Whether the last byte that is not whitespace closes an array. */
	private static boolean endsArray(byte[] bytes, int offset, int length) {
		int i = offset + length - 1;
		while (i > offset && JsonElementSplitter.isWhitespace(bytes[i])) {
			i--;
		}
		return bytes[i] == ']';
	}


	private void take(@Nullable Object value, long tokenCount) {
		if (value == NO_VALUE) {
			return;
		}
		this.valueTokenCount += tokenCount;
		if (this.logsValues) {
			FastpathJsonDecoder.logValue(this.logger, value, this.hints);
		}
		if (value != null) {
			values().add(value);
		}
	}

	/** Reads the values of one parser, with one deserialization context, as MappingIterator keeps one. */
	private final class ValueReading {

		private final JsonParser parser;

		private @Nullable MappingIterator<Object> databind;

		/** Whether the parser counts tokens (only with a token limit). */
		private final boolean countsTokens;

		/** How many tokens the last value read has, if counted. */
		long lastTokenCount;

		ValueReading(JsonParser parser) {
			this.parser = parser;
			this.countsTokens = JsonElementReader.this.constraints.hasMaxTokenCount();
		}

		/** Read the value that starts with the current token. */
		@Nullable Object read(JsonToken token) {
			if (!this.countsTokens) {
				return readValue(token);
			}
			long first = this.parser.currentTokenCount();
			Object value = readValue(token);
			this.lastTokenCount = this.parser.currentTokenCount() - first + 1;
			return value;
		}

		private @Nullable Object readValue(JsonToken token) {
			Object value = JsonElementReader.this.scalarKind.read(this.parser, token);
			if (value != ScalarKind.NOT_CANONICAL) {
				return value;
			}
			if (token == JsonToken.VALUE_NULL || JsonElementReader.this.unwrapsRootValues) {
				// The reader's root handling: null values, root name unwrapping.
				return JsonElementReader.this.reader.readValue(this.parser);
			}
			if (this.databind == null) {
				this.databind = JsonElementReader.this.reader.readValues(this.parser);
			}
			return this.databind.nextValue();
		}

	}

}
