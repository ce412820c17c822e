package io.fastpath.json;

import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentMap;
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
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
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
 * <p>It is a {@code JacksonJsonDecoder} itself, and every public method reaches the
 * decorated decoder: code that looks for the JSON decoder among a configurer's readers and
 * configures it ({@code registerMappersForType}, {@code setMaxInMemorySize}) configures
 * the decorated decoder, whose settings this one reads as it reads, and a codec
 * configurer's {@code maxInMemorySize} reaches one set as its JSON decoder as it reaches
 * stock's. The registrations and limit this decoder holds as a {@code JacksonJsonDecoder}
 * stay unused.
 *
 * @author Fastpath
 */
public final class FastpathJsonDecoder extends JacksonJsonDecoder implements JoiningDecoder<Object> {

	/** Same key as {@code JacksonCodecSupport}'s actual type hint (package-private there). */
	private static final String ACTUAL_TYPE_HINT = JacksonCodecSupport.class.getName() + ".actualType";

	/**
	 * The request's {@code Content-Length}, added to the hints by
	 * {@link #getDecodeHints}: the chunk that completes the body can be read ahead whole.
	 */
	static final String CONTENT_LENGTH_HINT = FastpathJsonDecoder.class.getName() + ".contentLength";

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
		super(stock.getMapper(), stock.getDecodableMimeTypes().toArray(MimeType[]::new));
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
	 * Return the decorated decoder's default mapper.
	 * @return the mapper
	 */
	@Override
	public JsonMapper getMapper() {
		return this.stock.getMapper();
	}

	/**
	 * Register mappers for a type on the decorated decoder, which this one reads with.
	 * @param clazz the type
	 * @param registrar adds the mappers by MIME type
	 * @see JacksonJsonDecoder#registerMappersForType(Class, Consumer)
	 */
	@Override
	public void registerMappersForType(Class<?> clazz, Consumer<Map<MimeType, JsonMapper>> registrar) {
		this.stock.registerMappersForType(clazz, registrar);
	}

	/**
	 * Return the mappers the decorated decoder has registered for a type.
	 * @param clazz the type
	 * @return the mappers by MIME type
	 * @see JacksonJsonDecoder#getMappersForType(Class)
	 */
	@Override
	public @Nullable Map<MimeType, JsonMapper> getMappersForType(Class<?> clazz) {
		return this.stock.getMappersForType(clazz);
	}

	/**
	 * Set the limit on buffered bytes, on the decorated decoder: for a whole body, or for
	 * one element of a stream.
	 * @param byteCount the limit, or -1 for none
	 * @see JacksonJsonDecoder#setMaxInMemorySize(int)
	 */
	@Override
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
		JsonMapper mapper = StockMapperSelection.select(this.stock, elementType, mimeType);
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
			JsonElementReader elements = new JsonElementReader(plan.reader(), plan.scalarKind(), hintsToUse,
					this.logger, this::rejected, plan.twin() ? (failure) -> fallBack(key, elementType, failure) : null);
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

	/**
	 * Decode a whole body: {@code null} for the JSON {@code null}, which the stock decoder
	 * returns too, although {@code AbstractJacksonDecoder} declares a result that is never
	 * {@code null} ({@code Decoder} declares one that may be).
	 */
	@Override
	@SuppressWarnings("NullAway")
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
		JsonMapper mapper = StockMapperSelection.select(this.stock, targetType, mimeType);
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
			logValue(this.logger, value, hints);
			return value;
		}
		catch (JacksonException ex) {
			throw rejected(ex);
		}
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
		JsonMapper readingMapper = (twins != null) ? twins.mapperFor(key.mapper(), key.type()) : key.mapper();
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

	static void logValue(Log logger, @Nullable Object value, @Nullable Map<String, Object> hints) {
		if (!Hints.isLoggingSuppressed(hints)) {
			LogFormatUtils.traceDebug(logger, (traceOn) -> {
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

}
