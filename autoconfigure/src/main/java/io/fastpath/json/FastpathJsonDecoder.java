package io.fastpath.json;

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SynchronousSink;
import reactor.util.context.ContextView;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.base.ParserBase;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.core.exc.UnexpectedEndOfInputException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.MappingIterator;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.exc.InvalidDefinitionException;
import tools.jackson.databind.json.JsonMapper;

import io.fastpath.buffer.DataBufferAggregator;
import io.fastpath.buffer.JoiningDecoder;
import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;

import org.springframework.core.GenericTypeResolver;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.core.codec.CodecException;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.codec.Hints;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.log.LogFormatUtils;
import org.springframework.http.HttpLogging;
import org.springframework.http.codec.HttpMessageDecoder;
import org.springframework.http.codec.JacksonCodecSupport;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.util.Assert;
import org.springframework.util.ConcurrentReferenceHashMap;
import org.springframework.util.MimeType;

/**
 * Decodes JSON with Jackson Databind like Spring's {@link JacksonJsonDecoder}, which it
 * decorates (same mapper, registrations, MIME types, limit and hints), but faster:
 * <ul>
 * <li>{@code Flux<T>} over a top-level array (or newline-delimited JSON) reads all
 * elements that a chunk completes with one parser, instead of copying every token of
 * every element into a {@code TokenBuffer} and reading each back. A splitter
 * ({@link JsonElementSplitter}) finds element boundaries in the raw bytes.
 * {@code Long}, {@code Integer}, {@code Boolean}, {@code String} and {@code Double}
 * elements are taken from the token directly when it is the canonical one for the type;
 * for them, the parser first reads a chunk's array values ahead, as far as they are
 * surely complete, and the splitter scans only the rest. Elements of any type are read
 * ahead from the chunk that brings a request body to its {@code Content-Length} (the
 * server's hints carry it), so a body that arrives in one buffer is read by one parser
 * without a scan.</li>
 * <li>Whole values ({@code Mono}, including {@code List<T>}, {@code Set<T>}, {@code T[]}
 * and primitive arrays) are parsed in place from heap buffers, with
 * {@code ObjectReader}s cached per type and view: a body in several heap buffers is
 * streamed to the parser rather than joined first, and primitive arrays are filled
 * straight from their tokens ({@link PrimitiveArrayReader}).</li>
 * </ul>
 * Anything it does not handle better falls through to the stock decoder: a {@code Flux}
 * of arrays or collections (the stock decoder reads each top-level value whole), charsets
 * other than UTF-8, and mappers whose read features change the JSON syntax (comments,
 * single quotes, trailing commas, ...) or whose factory decorates its input.
 * <p>Errors are the stock ones: {@code DecodingException} for malformed JSON and wrong
 * types, {@code DataBufferLimitException} over the limit ({@code maxInMemorySize} applies
 * to the whole body for a {@code Mono}, to one element for a {@code Flux}, as stock).
 *
 * @author Fastpath
 */
public final class FastpathJsonDecoder implements HttpMessageDecoder<Object>, JoiningDecoder<Object> {

	/** Same key as {@code JacksonCodecSupport}'s actual type hint (package-private there). */
	private static final String ACTUAL_TYPE_HINT = JacksonCodecSupport.class.getName() + ".actualType";

	/**
	 * The request's {@code Content-Length}, added to the hints by
	 * {@link #getDecodeHints}: the chunk that completes the body can be read ahead whole.
	 */
	static final String CONTENT_LENGTH_HINT = FastpathJsonDecoder.class.getName() + ".contentLength";

	/** Marks that no element value is waiting to be taken. */
	private static final Object NO_VALUE = new Object();

	/** Most bytes at the end of a chunk that reading ahead leaves to the splitter. */
	private static final int MAX_READ_AHEAD_MARGIN = 16 * 1024;

	private final Log logger = HttpLogging.forLogName(getClass());

	private final JacksonJsonDecoder stock;

	/** The twins to read with, or {@code null} to read with the mappers the stock decoder selects. */
	private final @Nullable BlackbirdTwins twins;

	private final ReadListener listener;

	/** Tells the listener of a whole body over the limit; one per decoder, not per body. */
	private final Runnable limitExceeded;

	private final ConcurrentMap<ReaderKey, ReadPlan> plans = new ConcurrentReferenceHashMap<>();

	/**
	 * Create a decoder for the given mapper, with the stock JSON MIME types.
	 * @param mapper the mapper to read values with
	 */
	public FastpathJsonDecoder(JsonMapper mapper) {
		this(new JacksonJsonDecoder(mapper), null, ReadListener.NONE);
	}

	private FastpathJsonDecoder(JacksonJsonDecoder stock, @Nullable BlackbirdTwins twins, ReadListener listener) {
		this.stock = stock;
		this.twins = twins;
		this.listener = listener;
		this.limitExceeded = () -> listener.onRead(ReadEvent.JSON_TOO_LARGE);
	}

	/**
	 * Create a decoder that decorates the given stock decoder: it reads with the stock
	 * decoder's mapper (and per-type registrations), MIME types and limit, which it shares,
	 * and falls back to it.
	 * @param stock the stock decoder, configured
	 * @return the decoder
	 */
	public static FastpathJsonDecoder from(JacksonJsonDecoder stock) {
		return from(stock, ReadListener.NONE);
	}

	/**
	 * Create a decoder that decorates the given stock decoder, as {@link #from(JacksonJsonDecoder)},
	 * and tells the given listener which way each body goes.
	 * @param stock the stock decoder, configured
	 * @param listener the listener to tell
	 * @return the decoder
	 */
	public static FastpathJsonDecoder from(JacksonJsonDecoder stock, ReadListener listener) {
		return from(stock, null, listener);
	}

	/**
	 * A decoder that reads values with the given twins of the stock decoder's mappers (or
	 * with those mappers, given {@code null}), and tells the given listener which way each
	 * body goes.
	 */
	static FastpathJsonDecoder from(JacksonJsonDecoder stock, @Nullable BlackbirdTwins twins,
			ReadListener listener) {
		Assert.notNull(stock, "'stock' must not be null");
		Assert.notNull(listener, "'listener' must not be null");
		return new FastpathJsonDecoder(stock, twins, listener);
	}

	/**
	 * Return the stock decoder this one decorates and falls back to.
	 * @return the stock decoder
	 */
	public JacksonJsonDecoder getStockDecoder() {
		return this.stock;
	}

	/**
	 * Return the default mapper.
	 * @return the mapper
	 */
	public JsonMapper getMapper() {
		return this.stock.getMapper();
	}

	/**
	 * Set the limit on buffered bytes: for a whole body, or for one element of a stream.
	 * @param byteCount the limit, or -1 for none
	 * @see JacksonJsonDecoder#setMaxInMemorySize(int)
	 */
	public void setMaxInMemorySize(int byteCount) {
		this.stock.setMaxInMemorySize(byteCount);
	}

	@Override
	public int getMaxInMemorySize() {
		return this.stock.getMaxInMemorySize();
	}

	/**
	 * Return {@code true}: a body in several heap buffers is streamed to the parser from
	 * them, which allocates less than joining them first (docs/benchmarks.md); one in
	 * Netty's buffers is gathered into a composite, without a copy, as a join would.
	 */
	@Override
	public boolean gathersParts() {
		return true;
	}

	@Override
	public boolean canDecode(ResolvableType elementType, @Nullable MimeType mimeType) {
		return this.stock.canDecode(elementType, mimeType);
	}

	@Override
	public List<MimeType> getDecodableMimeTypes() {
		return this.stock.getDecodableMimeTypes();
	}

	@Override
	public List<MimeType> getDecodableMimeTypes(ResolvableType targetType) {
		return this.stock.getDecodableMimeTypes(targetType);
	}

	@Override
	public Map<String, Object> getDecodeHints(ResolvableType actualType, ResolvableType elementType,
			ServerHttpRequest request, ServerHttpResponse response) {
		Map<String, Object> hints = this.stock.getDecodeHints(actualType, elementType, request, response);
		long contentLength = request.getHeaders().getContentLength();
		return (contentLength >= 0) ? Hints.merge(hints, CONTENT_LENGTH_HINT, contentLength) : hints;
	}

	@Override
	public Flux<Object> decode(Publisher<DataBuffer> input, ResolvableType elementType, @Nullable MimeType mimeType,
			@Nullable Map<String, Object> hints) {
		JsonMapper mapper = selectMapper(elementType, mimeType);
		ReadEvent path = JsonReadEvents.fluxPath(mapper, elementType, mimeType);
		// The listener is told when a body is read, at subscription, not when it is assembled.
		if (mapper == null || path != ReadEvent.JSON_FLUX) {
			return Flux.defer(() -> {
				this.listener.onRead(path);
				return this.stock.decode(input, elementType, mimeType, hints);
			});
		}
		return Flux.deferContextual((contextView) -> {
			this.listener.onRead(path);
			Map<String, Object> hintsToUse = withContext(hints, contextView);
			ReaderKey key = readerKey(mapper, elementType, hintsToUse, true);
			ReadPlan plan = plan(key, elementType);
			// A stream cannot read a value again: the next one reads with the application's mapper.
			ElementReader elements = new ElementReader(plan.reader(), plan.scalarKind(), hintsToUse,
					plan.twin() ? (failure) -> fallBack(key, elementType, failure) : null);
			// Reading ahead may start a value that the chunk cuts, and Databind would run the
			// application's deserializers, setters and creators on it, once more than stock:
			// other values are read ahead only from the chunk that completes a body of known
			// length, where no value is cut.
			JsonElementSplitter splitter = new JsonElementSplitter(getMaxInMemorySize(),
					plan.scalarKind() != ScalarKind.OTHER || elements.knowsBodyLength());
			// The end is a step of its own, as stock's: an error thrown at the end inside
			// concatMapIterable would be dropped by a downstream onErrorContinue.
			return Flux.from(input)
				.map(InFlightBuffer::new)
				.concatMapIterable((chunk) -> elements.feed(splitter, chunk.handOver()))
				.concatWith(Flux.defer(() -> Flux.fromIterable(elements.end(splitter))))
				.doOnDiscard(InFlightBuffer.class, InFlightBuffer::release)
				.doFinally((signal) -> elements.close());
		});
	}

	@Override
	public Mono<Object> decodeToMono(Publisher<DataBuffer> input, ResolvableType elementType,
			@Nullable MimeType mimeType, @Nullable Map<String, Object> hints) {
		if (input instanceof Mono<DataBuffer> whole) {
			// Already aggregated, for example by the buffer feature's reader.
			return whole.handle((buffer, sink) -> emit(decode(buffer, elementType, mimeType,
					withContext(hints, sink.contextView())), sink));
		}
		// The parts are gathered, not joined: heap parts are streamed to the parser, so the
		// body is never copied into one buffer first (stock joins it).
		return DataBufferAggregator.collect(input, getMaxInMemorySize(), this.limitExceeded).handle((parts, sink) -> {
			if (!parts.isEmpty()) {
				emit(decodeParts(parts, elementType, mimeType, withContext(hints, sink.contextView())), sink);
			}
		});
	}

	private static void emit(@Nullable Object value, SynchronousSink<Object> sink) {
		if (value != null) {
			sink.next(value);
		}
	}

	private @Nullable Object decodeParts(List<DataBuffer> parts, ResolvableType targetType,
			@Nullable MimeType mimeType, @Nullable Map<String, Object> hints) {
		if (parts.size() == 1) {
			return decode(parts.get(0), targetType, mimeType, hints);
		}
		HeapBody body = HeapBody.of(parts);
		if (body == null) {
			// Direct memory: Netty's factory gathers the parts into a composite, without a copy.
			return decode(parts.get(0).factory().join(parts), targetType, mimeType, hints);
		}
		try {
			return read(body, ReadEvent.JSON_VALUE, targetType, mimeType, hints);
		}
		finally {
			parts.forEach(DataBufferUtils::release);
		}
	}

	@Override
	public @Nullable Object decode(DataBuffer buffer, ResolvableType targetType, @Nullable MimeType mimeType,
			@Nullable Map<String, Object> hints) throws DecodingException {
		try {
			HeapBody heap = HeapBody.of(buffer);
			if (heap != null) {
				return read(heap, ReadEvent.JSON_VALUE, targetType, mimeType, hints);
			}
			// Direct memory cannot be parsed in place: stream it, as stock does.
			return read(new StreamedBody(buffer), ReadEvent.JSON_VALUE_STREAMED, targetType, mimeType, hints);
		}
		finally {
			DataBufferUtils.release(buffer);
		}
	}

	/**
	 * Read a whole body: a primitive array straight from its tokens when it can be, else
	 * through Databind, telling the listener the given path.
	 */
	private @Nullable Object read(JsonBody body, ReadEvent databindPath, ResolvableType targetType,
			@Nullable MimeType mimeType, @Nullable Map<String, Object> hints) {
		return read((plan) -> {
			Object array = readPrimitiveArray(plan, body);
			if (array != null) {
				return array;
			}
			this.listener.onRead(databindPath);
			return body.readValue(plan.reader());
		}, targetType, mimeType, hints);
	}

	/** A primitive array read straight from its tokens, or {@code null} if Databind must read the body. */
	private @Nullable Object readPrimitiveArray(ReadPlan plan, JsonBody body) {
		PrimitiveArrayReader primitiveArray = plan.primitiveArray();
		Object array = (primitiveArray != null) ? primitiveArray.read(plan.reader(), body) : null;
		if (array != null) {
			this.listener.onRead(ReadEvent.JSON_PRIMITIVE_ARRAY);
		}
		return array;
	}

	private @Nullable Object read(Function<ReadPlan, @Nullable Object> reading, ResolvableType targetType,
			@Nullable MimeType mimeType, @Nullable Map<String, Object> hints) {
		JsonMapper mapper = selectMapper(targetType, mimeType);
		if (mapper == null) {
			throw new IllegalStateException("No ObjectMapper for " + targetType);
		}
		ReaderKey key = readerKey(mapper, targetType, hints, false);
		ReadPlan plan = plan(key, targetType);
		try {
			Object value;
			try {
				value = reading.apply(plan);
			}
			catch (RuntimeException | LinkageError ex) {
				if (!plan.twin() || !BlackbirdTwins.isTwinFailure(ex)) {
					throw ex;
				}
				// The body is read again from its start, with the application's mapper.
				value = reading.apply(fallBack(key, targetType, ex));
			}
			logValue(value, hints);
			return value;
		}
		catch (JacksonException ex) {
			throw rejected(ex);
		}
	}

	/** The stock decoder's mapper selection, through its public registrations. */
	private @Nullable JsonMapper selectMapper(ResolvableType targetType, @Nullable MimeType mimeType) {
		if (mimeType == null) {
			return this.stock.getMapper();
		}
		Map<MimeType, JsonMapper> registrations = this.stock.getMappersForType(targetType.toClass());
		if (registrations == null || registrations.isEmpty()) {
			return this.stock.getMapper();
		}
		for (Map.Entry<MimeType, JsonMapper> registration : registrations.entrySet()) {
			if (registration.getKey().includes(mimeType)) {
				return registration.getValue();
			}
		}
		return null;
	}

	/**
	 * How to read the type with the given hints, cached: the reader the stock decoder
	 * would create, and a primitive array fast path where one applies. Stream readers do
	 * not check for trailing tokens: they read one element of many.
	 */
	private ReadPlan plan(JsonMapper mapper, ResolvableType type, @Nullable Map<String, Object> hints,
			boolean stream) {
		return plan(readerKey(mapper, type, hints, stream), type);
	}

	private static ReaderKey readerKey(JsonMapper mapper, ResolvableType type, @Nullable Map<String, Object> hints,
			boolean stream) {
		Class<?> contextClass = contextClass(type);
		if (contextClass == null && hints != null) {
			contextClass = contextClass((ResolvableType) hints.get(ACTUAL_TYPE_HINT));
		}
		Class<?> view = (hints != null) ? (Class<?>) hints.get(JacksonCodecSupport.JSON_VIEW_HINT) : null;
		return new ReaderKey(mapper, type.getType(), contextClass, view, stream);
	}

	private ReadPlan plan(ReaderKey key, ResolvableType type) {
		ReadPlan plan = this.plans.get(key);
		if (plan == null) {
			plan = createPlan(key, type);
			this.plans.putIfAbsent(key, plan);
		}
		return plan;
	}

	/**
	 * A plan that reads with the twin of the key's mapper, or with the mapper itself: where
	 * there is no twin, or the twin fails on the type while Blackbird builds its accessors
	 * (reading with the application's mapper then fails as stock would, if it fails too).
	 */
	private ReadPlan createPlan(ReaderKey key, ResolvableType type) {
		BlackbirdTwins twins = this.twins;
		JsonMapper readingMapper = (twins != null) ? twins.forReading(key.mapper(), key.type()) : key.mapper();
		if (twins == null || readingMapper == key.mapper()) {
			return createPlan(key, key.mapper(), type, false);
		}
		try {
			return createPlan(key, readingMapper, type, true);
		}
		catch (RuntimeException | LinkageError ex) {
			ReadPlan plan = createPlan(key, key.mapper(), type, false);
			twins.failed(key.type(), ex);
			return plan;
		}
	}

	/** Read the key's type with the application's mapper from now on: its twin failed on it. */
	private ReadPlan fallBack(ReaderKey key, ResolvableType type, Throwable failure) {
		BlackbirdTwins twins = this.twins;
		Assert.state(twins != null, "Only a twin falls back");
		ReadPlan plan = createPlan(key, key.mapper(), type, false);
		twins.failed(key.type(), failure);
		this.plans.put(key, plan);
		return plan;
	}

	private static ReadPlan createPlan(ReaderKey key, JsonMapper mapper, ResolvableType type, boolean twin) {
		JavaType javaType = mapper.constructType(GenericTypeResolver.resolveType(key.type(), key.contextClass()));
		ObjectReader reader = (key.view() != null) ? mapper.readerWithView(key.view()).forType(javaType)
				: mapper.readerFor(javaType);
		boolean tokensReadable = settingThatNeedsDatabind(reader) == null;
		if (key.stream()) {
			// Finding which fast path applies looks deserializers up: once per plan, not per stream.
			return new ReadPlan(reader.without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS), null,
					tokensReadable ? ScalarKind.of(mapper, type) : ScalarKind.OTHER, twin);
		}
		return new ReadPlan(reader, tokensReadable ? PrimitiveArrayReader.of(mapper, type.toClass()) : null,
				ScalarKind.OTHER, twin);
	}

	/**
	 * The mapper setting, if any, under which a value cannot be taken from its token (the
	 * scalar and primitive array fast paths) because Databind reads a top-level value in
	 * a way of its own; a reason to record, or {@code null}. Other settings are honoured
	 * by those fast paths or leave them the tokens they do not take: coercions and
	 * single-value arrays concern tokens that are not canonical, trailing tokens are
	 * checked, and read features are the parser's.
	 */
	static @Nullable String settingThatNeedsDatabind(ObjectReader reader) {
		if (reader.isEnabled(DeserializationFeature.UNWRAP_ROOT_VALUE)) {
			// Every value, root-named or not, is expected wrapped in an object: [1,2] fails.
			return "mapper setting UNWRAP_ROOT_VALUE";
		}
		return null;
	}

	private static @Nullable Class<?> contextClass(@Nullable ResolvableType type) {
		return (type != null && type.getSource() instanceof MethodParameter parameter) ? parameter.getContainingClass()
				: null;
	}

	private static @Nullable Map<String, Object> withContext(@Nullable Map<String, Object> hints,
			ContextView contextView) {
		return contextView.isEmpty() ? hints : Hints.merge(hints, ContextView.class.getName(), contextView);
	}

	private void logValue(@Nullable Object value, @Nullable Map<String, Object> hints) {
		if (!Hints.isLoggingSuppressed(hints)) {
			LogFormatUtils.traceDebug(this.logger, (traceOn) -> {
				String formatted = LogFormatUtils.formatValue(value, !traceOn);
				return Hints.getLogPrefix(hints) + "Decoded [" + formatted + "]";
			});
		}
	}

	/** The exception to answer a body with (the stock mapping of Jackson's), told to the listener. */
	private RuntimeException rejected(RuntimeException ex) {
		ReadEvent rejection = JsonReadEvents.rejection(ex);
		if (rejection != null) {
			this.listener.onRead(rejection);
		}
		return (ex instanceof JacksonException jackson) ? processException(jackson) : ex;
	}

	/** The stock decoder's exception mapping. */
	static CodecException processException(JacksonException ex) {
		if (ex instanceof InvalidDefinitionException definition) {
			return new CodecException("Type definition error: " + definition.getType(), ex);
		}
		if (ex instanceof tools.jackson.core.exc.JacksonIOException) {
			return new DecodingException("I/O error while parsing input stream", ex);
		}
		return new DecodingException("JSON decoding error: " + ex.getOriginalMessage(), ex);
	}

	/**
	 * How to read a type.
	 * @param twin whether the reader is a twin's, which may fail where the application's
	 * mapper would not
	 */
	private record ReadPlan(ObjectReader reader, @Nullable PrimitiveArrayReader primitiveArray,
			ScalarKind scalarKind, boolean twin) {
	}

	private record ReaderKey(JsonMapper mapper, Type type, @Nullable Class<?> contextClass, @Nullable Class<?> view,
			boolean stream) {
	}

	/**
	 * Reads the elements of the regions a splitter hands over, one parser per region. One
	 * per stream, fed serially, so it keeps the values of the current step in a field.
	 */
	private final class ElementReader implements JsonElementSplitter.Regions {

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

		ElementReader(ObjectReader reader, ScalarKind scalarKind, @Nullable Map<String, Object> hints,
				@Nullable Consumer<Throwable> twinFailed) {
			this.reader = reader;
			this.twinFailed = twinFailed;
			this.scalarKind = scalarKind;
			this.hints = hints;
			this.unwrapsRootValues = reader.isEnabled(DeserializationFeature.UNWRAP_ROOT_VALUE);
			this.logsValues = FastpathJsonDecoder.this.logger.isDebugEnabled() && !Hints.isLoggingSuppressed(hints);
			this.constraints = reader.parserFactory().streamReadConstraints();
			this.contentLength = (hints != null && hints.get(CONTENT_LENGTH_HINT) instanceof Long length) ? length
					: -1;
			this.fedParser = (scalarKind != ScalarKind.OTHER && !this.constraints.hasMaxDocumentLength()
					&& !this.constraints.hasMaxTokenCount()) ? new FedParser(reader) : null;
		}

		boolean knowsBodyLength() {
			return this.contentLength >= 0;
		}

		/** Largest distance between the starts of two values read ahead, separators included. */
		private int largestValue;

		/** How many values the last step that completed any completed. */
		private int lastValueCount;

		/** Values completed by the current splitter step; created on the first one. */
		private @Nullable List<Object> values;

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
				throw rejected(twinFailure(ex));
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
				throw rejected(twinFailure(ex));
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
			while (first <= last && isWhitespace(chunk.getByte(first))) {
				first++;
			}
			while (last > first && isWhitespace(chunk.getByte(last))) {
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
			while (i < end && isWhitespace(bytes[i])) {
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
			while (i > offset && isWhitespace(bytes[i])) {
				i--;
			}
			return bytes[i] == ']';
		}

		private static boolean isWhitespace(byte b) {
			return b == ' ' || b == '\n' || b == '\r' || b == '\t';
		}

		private void take(@Nullable Object value, long tokenCount) {
			if (value == NO_VALUE) {
				return;
			}
			this.valueTokenCount += tokenCount;
			if (this.logsValues) {
				logValue(value, this.hints);
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
				this.countsTokens = ElementReader.this.constraints.hasMaxTokenCount();
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
				Object value = ElementReader.this.scalarKind.read(this.parser, token);
				if (value != ScalarKind.NOT_CANONICAL) {
					return value;
				}
				if (token == JsonToken.VALUE_NULL || ElementReader.this.unwrapsRootValues) {
					// The reader's root handling: null values, root name unwrapping.
					return ElementReader.this.reader.readValue(this.parser);
				}
				if (this.databind == null) {
					this.databind = ElementReader.this.reader.readValues(this.parser);
				}
				return this.databind.nextValue();
			}

		}

	}

}
