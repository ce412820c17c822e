package io.fastpath.json.write;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;
import tools.jackson.core.JsonEncoding;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import io.fastpath.codec.WriteEvent;
import io.fastpath.codec.WriteListener;
import io.fastpath.json.BlackbirdTwins;
import io.fastpath.json.StockMapperSelection;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Hints;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
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
 * array syntax and stream separator. A {@code Mono} and single values are written as the
 * stock encoder writes them.
 * <p>Given twins ({@link BlackbirdTwins}), values of the types the stock encoder writes
 * with its own mapper are written with the twin of that mapper, in batches, as a
 * {@code Mono} and as single values: the same bytes, with Blackbird's accessors. Types
 * with a mapper registered for them are written with that mapper. A single value on
 * which the twin fails is written again with the stock encoder, before any of it went
 * out; a value of a {@code Flux} is taken back from its batch and written again (see
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

	private final JacksonJsonEncoder stock;

	private final int cap;

	/** The twins to write with, or {@code null} to write with the stock encoder's mappers. */
	private final @Nullable BlackbirdTwins twins;

	private final WriteListener listener;

	/**
	 * A stock encoder of the twin of the stock encoder's mapper, which writes single
	 * values as the stock encoder writes them; made with the first value written with it.
	 */
	private volatile @Nullable JacksonJsonEncoder twinEncoder;

	/**
	 * Batch what the given encoder writes.
	 * @param stock the encoder
	 * @param cap the size past which a batch is emitted
	 * @param twins the twins to write with, or {@code null} to write with the encoder's
	 * mappers
	 * @param listener the listener to tell of each body written in batches
	 */
	BatchingJsonEncoder(JacksonJsonEncoder stock, int cap, @Nullable BlackbirdTwins twins, WriteListener listener) {
		super(stock.getMapper(), stock.getEncodableMimeTypes().toArray(MimeType[]::new));
		this.stock = stock;
		this.cap = cap;
		this.twins = twins;
		this.listener = listener;
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
			if (this.twins == null) {
				return this.stock.encode(inputStream, bufferFactory, elementType, mimeType, hints);
			}
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
				this.cap, this.listener, kind, OneBatchBody.from(hints));
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

	@Override
	public DataBuffer encodeValue(Object value, DataBufferFactory bufferFactory, ResolvableType valueType,
			@Nullable MimeType mimeType, @Nullable Map<String, Object> hints) {
		BlackbirdTwins twins = this.twins;
		JsonMapper selected = StockMapperSelection.select(this.stock, valueType, mimeType);
		JsonMapper twin = (twins != null && selected != null)
				? twins.twinForWriting(this.stock, selected, valueType.getType()) : null;
		if (twins == null || twin == null) {
			return this.stock.encodeValue(value, bufferFactory, valueType, mimeType, hints);
		}
		try {
			return twinEncoder(twin).encodeValue(value, bufferFactory, valueType, mimeType, hints);
		}
		catch (RuntimeException | LinkageError ex) {
			if (!BlackbirdTwins.isTwinFailure(ex)) {
				throw ex;
			}
			// Nothing of the value was written: the encoder writes it whole before its buffer
			twins.failed(valueType.getType(), ex);
			return this.stock.encodeValue(value, bufferFactory, valueType, mimeType, hints);
		}
	}

	/**
	 * A stock encoder of the given twin, whose single values are the stock encoder's bytes:
	 * its writer for the hints, encoding, logging and errors. The twin has no registrations
	 * and it is used only for types that have none.
	 */
	private JacksonJsonEncoder twinEncoder(JsonMapper twin) {
		JacksonJsonEncoder encoder = this.twinEncoder;
		if (encoder == null || encoder.getMapper() != twin) {
			encoder = new JacksonJsonEncoder(twin, this.stock.getEncodableMimeTypes().toArray(MimeType[]::new));
			this.twinEncoder = encoder;
		}
		return encoder;
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
