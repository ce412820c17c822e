package io.fastpath.json;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.core.JsonEncoding;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import io.fastpath.codec.WriteEvent;
import io.fastpath.codec.WriteListener;

import org.springframework.core.ResolvableType;
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
 * array syntax and stream separator. A {@code Mono} and single values are the stock
 * encoder's own.
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

	private final WriteListener listener;

	/**
	 * Batch what the given encoder writes.
	 * @param stock the encoder
	 * @param cap the size past which a batch is emitted
	 * @param listener the listener to tell of each body written in batches
	 */
	BatchingJsonEncoder(JacksonJsonEncoder stock, int cap, WriteListener listener) {
		super(stock.getMapper(), stock.getEncodableMimeTypes().toArray(MimeType[]::new));
		this.stock = stock;
		this.cap = cap;
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
			return this.stock.encode(inputStream, bufferFactory, elementType, mimeType, hints);
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
		JsonMapper mapper = StockJsonWriting.selectMapper(this.stock, elementType, mimeType);
		if (mapper == null) {
			throw new IllegalStateException("No ObjectMapper for " + elementType);
		}
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
		return new JsonSequenceBatchWriter(values, StockJsonWriting.isStreaming(this.stock, mimeType));
	}

	@Override
	public DataBuffer encodeValue(Object value, DataBufferFactory bufferFactory, ResolvableType valueType,
			@Nullable MimeType mimeType, @Nullable Map<String, Object> hints) {
		return this.stock.encodeValue(value, bufferFactory, valueType, mimeType, hints);
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
