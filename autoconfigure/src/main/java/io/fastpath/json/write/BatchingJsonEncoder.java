package io.fastpath.json.write;

import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonEncoding;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.util.BufferRecycler;
import tools.jackson.core.util.ByteArrayBuilder;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.exc.InvalidDefinitionException;
import tools.jackson.databind.json.JsonMapper;

import io.fastpath.codec.WriteEvent;
import io.fastpath.codec.WriteListener;
import io.fastpath.json.BlackbirdTwins;
import io.fastpath.json.StockMapperSelection;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.CodecException;
import org.springframework.core.codec.EncodingException;
import org.springframework.core.codec.Hints;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.log.LogFormatUtils;
import org.springframework.http.MediaType;
import org.springframework.http.codec.json.JacksonJsonEncoder;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.util.MimeType;

/**
 * A stock {@link JacksonJsonEncoder} whose multi-value publishers are written in batches
 * ({@link ReadyBatches}): one buffer for the values the source has ready, where the stock
 * encoder gives each value a buffer of its own (and with it a write and, on HTTP/1.1, a
 * chunk). The bytes are the stock encoder's: its mapper, writer, hints, encoding,
 * array syntax and stream separator. A {@code Mono} and single values are the stock
 * encoder's bytes too, written with fewer copies ({@link #encodeValue}).
 * <p>Given twins ({@link BlackbirdTwins}), values of the types the stock encoder writes
 * with its own mapper are written with the twin of that mapper, in batches, as a
 * {@code Mono} and as single values: the same bytes, with Blackbird's accessors. Types
 * with a mapper registered for them are written with that mapper. A single value on
 * which the twin fails is written again with the application's mapper, before any of it
 * went out; a value of a {@code Flux} is taken back from its batch and written again (see
 * {@link JsonSequenceBatchWriter}).
 * <p>It is a {@code JacksonJsonEncoder} itself, and every public method reaches the stock
 * encoder: code that looks for the JSON encoder among a configurer's writers and
 * configures it configures the stock encoder, whose settings this one reads as it writes.
 * Spring Boot gives Actuator's responses a mapper of their own that way: it calls
 * {@code registerMappersForType} on the {@code JacksonJsonEncoder} of each
 * {@code EncoderHttpMessageWriter} that the server's configurer lists. The registrations
 * and streaming types this encoder holds as a {@code JacksonJsonEncoder} stay unused.
 *
 * @author Fastpath
 */
final class BatchingJsonEncoder extends JacksonJsonEncoder {

	/**
	 * The capacity a single value's buffer starts with, before its size is known: it grows
	 * as the value is written.
	 */
	private static final int VALUE_FIRST_CAPACITY = 1024;

	private final JacksonJsonEncoder stock;

	private final int cap;

	/** The twins to write with, or {@code null} to write with the stock encoder's mappers. */
	private final @Nullable BlackbirdTwins twins;

	private final WriteListener listener;

	private final LongSupplier nanoClock;

	/**
	 * Batch what the given encoder writes.
	 * @param stock the encoder
	 * @param cap the size past which a batch is emitted
	 * @param twins the twins to write with, or {@code null} to write with the encoder's
	 * mappers
	 * @param listener the listener to tell of each body written in batches
	 */
	BatchingJsonEncoder(JacksonJsonEncoder stock, int cap, @Nullable BlackbirdTwins twins, WriteListener listener) {
		this(stock, cap, twins, listener, System::nanoTime);
	}

	/**
	 * Batch what the given encoder writes, telling a slow step of a source by the given
	 * clock (see {@link ReadyBatches}).
	 * @param stock the encoder
	 * @param cap the size past which a batch is emitted
	 * @param twins the twins to write with, or {@code null} to write with the encoder's
	 * mappers
	 * @param listener the listener to tell of each body written in batches
	 * @param nanoClock the time in nanoseconds
	 */
	BatchingJsonEncoder(JacksonJsonEncoder stock, int cap, @Nullable BlackbirdTwins twins, WriteListener listener,
			LongSupplier nanoClock) {
		super(stock.getMapper(), stock.getEncodableMimeTypes().toArray(MimeType[]::new));
		this.stock = stock;
		this.cap = cap;
		this.twins = twins;
		this.listener = listener;
		this.nanoClock = nanoClock;
	}

	/** Return the encoder whose output this batches. */
	JacksonJsonEncoder getStock() {
		return this.stock;
	}

	@Override
	public JsonMapper getMapper() {
		return this.stock.getMapper();
	}

	@Override
	public void registerMappersForType(Class<?> clazz, Consumer<Map<MimeType, JsonMapper>> registrar) {
		this.stock.registerMappersForType(clazz, registrar);
	}

	@Override
	public @Nullable Map<MimeType, JsonMapper> getMappersForType(Class<?> clazz) {
		return this.stock.getMappersForType(clazz);
	}

	@Override
	public void setStreamingMediaTypes(List<MediaType> mediaTypes) {
		// JacksonJsonEncoder's constructor sets its default through here, before this
		// encoder knows the stock one: that default stays its own, unused.
		if (this.stock == null) {
			super.setStreamingMediaTypes(mediaTypes);
			return;
		}
		this.stock.setStreamingMediaTypes(mediaTypes);
	}

	@Override
	public boolean canEncode(ResolvableType elementType, @Nullable MimeType mimeType) {
		return this.stock.canEncode(elementType, mimeType);
	}

	@Override
	public Flux<DataBuffer> encode(Publisher<?> inputStream, DataBufferFactory bufferFactory,
			ResolvableType elementType, @Nullable MimeType mimeType, @Nullable Map<String, Object> hints) {
		if (inputStream instanceof Mono) {
			// As the stock encoder encodes a Mono, with its value written by encodeValue
			return Flux.deferContextual((context) -> {
				Map<String, Object> hintsToUse = context.isEmpty() ? hints
						: Hints.merge((hints != null) ? hints : Hints.none(), ContextView.class.getName(), context);
				return Mono.from(inputStream)
					.map((value) -> encodeValue(value, bufferFactory, elementType, mimeType, hintsToUse))
					.flux();
			});
		}
		// A streaming type has a separator between values, as the writer of the body finds it.
		WriteEvent.Kind kind = StockJsonWriting.isStreaming(this.stock, mimeType) ? WriteEvent.Kind.JSON_STREAM
				: WriteEvent.Kind.JSON_ARRAY;
		return new ReadyBatches<Object>(inputStream, bufferFactory, () -> writer(elementType, mimeType, hints),
				this.cap, this.listener, kind, OneBatchBody.from(hints), this.nanoClock);
	}

	/** The writer of one body, created when it is subscribed to, as the stock encoder does. */
	private BatchWriter<Object> writer(ResolvableType elementType, @Nullable MimeType mimeType,
			@Nullable Map<String, Object> hints) {
		JsonMapper mapper = StockMapperSelection.select(this.stock, elementType, mimeType);
		if (mapper == null) {
			throw new IllegalStateException("No ObjectMapper for " + elementType);
		}
		boolean stream = StockJsonWriting.isStreaming(this.stock, mimeType);
		BlackbirdTwins twins = this.twins;
		JsonMapper twin = (twins != null) ? twins.twinForWriting(this.stock, mapper, elementType.getType()) : null;
		if (twins == null || twin == null) {
			return new JsonSequenceBatchWriter(values(mapper, elementType, mimeType, hints), stream, null);
		}
		return new JsonSequenceBatchWriter(values(twin, elementType, mimeType, hints), stream, (failure) -> {
			twins.failed(elementType.getType(), failure);
			return values(mapper, elementType, mimeType, hints);
		});
	}

	/** The writer of the values of one body with the given mapper. */
	private JsonValueWriter values(JsonMapper mapper, ResolvableType elementType, @Nullable MimeType mimeType,
			@Nullable Map<String, Object> hints) {
		ObjectWriter writer = StockJsonWriting.objectWriter(this.stock, mapper, elementType, mimeType, hints);
		JsonEncoding encoding = StockJsonWriting.jsonEncoding(mimeType);
		BatchOutputStream output = new BatchOutputStream();
		JsonValueWriter values;
		if (encoding == JsonEncoding.UTF8 && !mapper.isEnabled(SerializationFeature.INDENT_OUTPUT)
				&& " ".equals(mapper.tokenStreamFactory().getRootValueSeparator())) {
			// Compact UTF-8 with the default root value separator, a space, which stock drops
			// from every value after the first: the generator buffers across values (see
			// JsonValueWriter), so it writes no separator and is not flushed after each value;
			// its other settings are the mapper's, as the stock encoder's generator has them.
			ObjectWriter buffering = writer.without(SerializationFeature.FLUSH_AFTER_WRITE_VALUE)
				.withRootValueSeparator((String) null);
			JsonGenerator generator = buffering.createGenerator(output, encoding);
			values = new JsonValueWriter(output, generator, buffering.writeValues(generator), true, this.logger,
					hints);
		}
		else {
			// Created from the mapper, as the stock encoder creates it: the writer's view and
			// filters apply to the values, the mapper's settings to the generator.
			JsonGenerator generator = mapper.createGenerator(output, encoding);
			values = new JsonValueWriter(output, generator, writer.writeValues(generator), false, this.logger,
					hints);
		}
		return values;
	}

	/**
	 * Write the value as the stock encoder writes it (its mapper for the type and media type,
	 * its writer for the hints, its encoding, logging and errors), but with fewer copies:
	 * the stock encoder writes it into Jackson's segmented builder, copies that into an
	 * array and the array into the buffer. Into a factory of direct buffers the value is
	 * written straight, and on the heap the buffer wraps the array (see
	 * {@link #writeValue}). The value's type alone chooses the mapper, so a stock encoder's
	 * streaming separator plays no part here, as it plays none in the stock encoder's
	 * {@code encodeValue}; and every encoding the stock encoder maps a charset to, Jackson
	 * writes into any output stream, so no case is left to it.
	 */
	@Override
	public DataBuffer encodeValue(Object value, DataBufferFactory bufferFactory, ResolvableType valueType,
			@Nullable MimeType mimeType, @Nullable Map<String, Object> hints) {
		JsonMapper mapper = StockMapperSelection.select(this.stock, valueType, mimeType);
		if (mapper == null) {
			throw new IllegalStateException("No ObjectMapper for " + valueType);
		}
		logValue(value, hints);
		BlackbirdTwins twins = this.twins;
		JsonMapper twin = (twins != null) ? twins.twinForWriting(this.stock, mapper, valueType.getType()) : null;
		if (twins != null && twin != null) {
			try {
				return writeValue(value, twin, bufferFactory, valueType, mimeType, hints);
			}
			catch (RuntimeException | LinkageError ex) {
				if (!BlackbirdTwins.isTwinFailure(ex)) {
					throw ex;
				}
				// What the twin wrote was released: the value is written anew
				twins.failed(valueType.getType(), ex);
			}
		}
		return writeValue(value, mapper, bufferFactory, valueType, mimeType, hints);
	}

	/**
	 * Write the value with the given mapper into a new buffer, or throw the error the stock
	 * encoder would, with nothing allocated for it left unreleased. A factory of direct
	 * buffers (on Reactor Netty, pooled memory off the heap) gives the buffer the value is
	 * written into as it grows. On the heap a growing buffer would copy the value into a new
	 * array each time its capacity doubles, and end up to twice the value's size: there the
	 * value is written, as the stock encoder writes it, into Jackson's segmented builder,
	 * whose one array of the value's exact size the buffer wraps, where the stock encoder
	 * copies that array into a buffer of its own.
	 */
	private DataBuffer writeValue(Object value, JsonMapper mapper, DataBufferFactory bufferFactory,
			ResolvableType valueType, @Nullable MimeType mimeType, @Nullable Map<String, Object> hints) {
		ObjectWriter writer = StockJsonWriting.objectWriter(this.stock, mapper, valueType, mimeType, hints);
		JsonEncoding encoding = StockJsonWriting.jsonEncoding(mimeType);
		DataBuffer buffer = bufferFactory.isDirect() ? writeInPlace(value, writer, encoding, bufferFactory)
				: writeWrapped(value, writer, encoding, bufferFactory);
		Hints.touchDataBuffer(buffer, hints, this.logger);
		return buffer;
	}

	/** Write the value into a buffer that grows as it is written, released if writing fails. */
	private static DataBuffer writeInPlace(Object value, ObjectWriter writer, JsonEncoding encoding,
			DataBufferFactory bufferFactory) {
		DataBuffer buffer = bufferFactory.allocateBuffer(VALUE_FIRST_CAPACITY);
		boolean written = false;
		try {
			write(value, writer, encoding, buffer.asOutputStream());
			written = true;
		}
		finally {
			if (!written) {
				DataBufferUtils.release(buffer);
			}
		}
		return buffer;
	}

	/**
	 * Write the value into Jackson's segmented builder, with the buffer recycler the stock
	 * encoder's builder takes, and wrap the array it makes of them.
	 */
	private static DataBuffer writeWrapped(Object value, ObjectWriter writer, JsonEncoding encoding,
			DataBufferFactory bufferFactory) {
		BufferRecycler recycler = writer.generatorFactory()._getBufferRecycler();
		ByteArrayBuilder bytes = new ByteArrayBuilder(recycler);
		try {
			write(value, writer, encoding, bytes);
			return bufferFactory.wrap(bytes.toByteArray());
		}
		finally {
			bytes.release();
			recycler.releaseToPool();
		}
	}

	/** Write the value into the output, throwing the error the stock encoder would. */
	private static void write(Object value, ObjectWriter writer, JsonEncoding encoding, OutputStream output) {
		// Created from the writer, as the stock encoder creates it for a single value
		try (JsonGenerator generator = writer.createGenerator(output, encoding)) {
			writer.writeValue(generator, value);
			generator.flush();
		}
		catch (InvalidDefinitionException ex) {
			throw new CodecException("Type definition error: " + ex.getType(), ex);
		}
		catch (JacksonException ex) {
			throw new EncodingException("JSON encoding error: " + ex.getOriginalMessage(), ex);
		}
	}

	/** Log the value as the stock encoder logs a value it encodes. */
	private void logValue(Object value, @Nullable Map<String, Object> hints) {
		if (!Hints.isLoggingSuppressed(hints)) {
			LogFormatUtils.traceDebug(this.logger, (traceOn) -> {
				String formatted = LogFormatUtils.formatValue(value, !traceOn);
				return Hints.getLogPrefix(hints) + "Encoding [" + formatted + "]";
			});
		}
	}

	@Override
	public List<MimeType> getEncodableMimeTypes() {
		return this.stock.getEncodableMimeTypes();
	}

	@Override
	public List<MimeType> getEncodableMimeTypes(ResolvableType elementType) {
		return this.stock.getEncodableMimeTypes(elementType);
	}

	@Override
	public List<MediaType> getStreamingMediaTypes() {
		return this.stock.getStreamingMediaTypes();
	}

	@Override
	public Map<String, Object> getEncodeHints(@Nullable ResolvableType actualType, ResolvableType elementType,
			@Nullable MediaType mediaType, ServerHttpRequest request, ServerHttpResponse response) {
		return this.stock.getEncodeHints(actualType, elementType, mediaType, request, response);
	}

}
