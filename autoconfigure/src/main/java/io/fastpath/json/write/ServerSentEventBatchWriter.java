package io.fastpath.json.write;

import java.nio.charset.Charset;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.http.codec.json.JacksonJsonEncoder;

import io.fastpath.json.BlackbirdTwins;
import io.fastpath.json.StockMapperSelection;

/**
 * Writes the events of a {@code text/event-stream} body as the stock
 * {@code ServerSentEventHttpMessageWriter} does with a Jackson encoder: each element (a
 * {@link ServerSentEvent}, or a value that is the data of one) as its fields, its data
 * ({@code String} data as it is, line by line, other data as the JSON the encoder writes
 * for it) and the blank line that ends it.
 * <p>Given twins, JSON data is written with the twin of the encoder's mapper, and with
 * the encoder's mapper from the data the twin fails on, written again.
 *
 * @author Fastpath
 */
final class ServerSentEventBatchWriter implements BatchWriter<Object> {

	private final JacksonJsonEncoder encoder;

	private final @Nullable BlackbirdTwins twins;

	private final ResolvableType dataType;

	private final MediaType mediaType;

	private final Charset charset;

	private final @Nullable Map<String, Object> hints;

	private final Log logger;

	/** The field name that starts the data of a value that is not an event. */
	private final byte[] dataField;

	private final byte[] eventEnd;

	private @Nullable JsonValueWriter values;

	/** Whether {@link #values} writes with a twin, which may fail where the mapper would not. */
	private boolean twinValues;

	/**
	 * Create a writer of one body.
	 * @param encoder the encoder of the events' data
	 * @param twins the twins to write JSON data with, or {@code null} to write it with the
	 * encoder's mappers
	 * @param dataType the type of the data
	 * @param mediaType the media type, with its charset
	 * @param hints the hints of the body
	 * @param logger the logger of the encoded values
	 */
	ServerSentEventBatchWriter(JacksonJsonEncoder encoder, @Nullable BlackbirdTwins twins, ResolvableType dataType,
			MediaType mediaType, @Nullable Map<String, Object> hints, Log logger) {
		Charset charset = mediaType.getCharset();
		if (charset == null) {
			throw new IllegalArgumentException("Expected MediaType with charset");
		}
		this.encoder = encoder;
		this.twins = twins;
		this.dataType = dataType;
		this.mediaType = mediaType;
		this.charset = charset;
		this.hints = hints;
		this.logger = logger;
		this.dataField = "data:".getBytes(charset);
		this.eventEnd = "\n\n".getBytes(charset);
	}

	@Override
	public void write(Object element, DataBuffer batch) {
		int mark = batch.writePosition();
		try {
			if (element instanceof ServerSentEvent<?> event) {
				writeEvent(event.format(), event.data(), batch);
			}
			else {
				writeData(element, this.dataField, batch);
			}
		}
		catch (RuntimeException | Error ex) {
			batch.writePosition(mark);
			throw ex;
		}
	}

	private void writeEvent(String fields, @Nullable Object data, DataBuffer batch) {
		if (data == null) {
			batch.write((fields + "\n").getBytes(this.charset));
		}
		else {
			writeData(data, fields.getBytes(this.charset), batch);
		}
	}

	/** Write the data of an event after its fields, which end with {@code data:}. */
	private void writeData(Object data, byte[] fields, DataBuffer batch) {
		batch.write(fields);
		if (data instanceof String text) {
			batch.write(dataLines(text).getBytes(this.charset));
		}
		else {
			writeJson(data, batch);
		}
		batch.write(this.eventEnd);
	}

	/**
	 * Write JSON data; when the twin fails on it (the batch left as it was before the data),
	 * again with the encoder's mapper, which writes the rest of the body.
	 */
	private void writeJson(Object data, DataBuffer batch) {
		JsonValueWriter values = values();
		try {
			values.write(data, batch);
		}
		catch (RuntimeException | Error ex) {
			BlackbirdTwins twins = this.twins;
			if (!this.twinValues || twins == null || !BlackbirdTwins.isTwinFailure(ex)) {
				throw ex;
			}
			twins.failed(this.dataType.getType(), ex);
			values.release();
			JsonValueWriter fallback = values(mapper());
			this.values = fallback;
			this.twinValues = false;
			fallback.write(data, batch);
		}
	}

	/** Text data with each line break (CR LF, CR or LF) starting a new data field. */
	private static String dataLines(String text) {
		if (text.indexOf('\n') == -1 && text.indexOf('\r') == -1) {
			return text;
		}
		StringBuilder lines = new StringBuilder(text.length() + 16);
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '\r' || c == '\n') {
				if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
					i++;
				}
				lines.append("\ndata:");
			}
			else {
				lines.append(c);
			}
		}
		return lines.toString();
	}

	/**
	 * The writer of JSON data, created with the first data to write, as the stock writer
	 * asks the encoder for a value's bytes only then: an error for lack of a mapper comes
	 * with the first event that has JSON data.
	 */
	private JsonValueWriter values() {
		JsonValueWriter values = this.values;
		if (values == null) {
			JsonMapper mapper = mapper();
			BlackbirdTwins twins = this.twins;
			JsonMapper twin = (twins != null) ? twins.twinForWriting(this.encoder, mapper, this.dataType.getType())
					: null;
			values = values((twin != null) ? twin : mapper);
			this.values = values;
			this.twinValues = (twin != null);
		}
		return values;
	}

	private JsonMapper mapper() {
		JsonMapper mapper = StockMapperSelection.select(this.encoder, this.dataType, this.mediaType);
		if (mapper == null) {
			throw new IllegalStateException("No ObjectMapper for " + this.dataType);
		}
		return mapper;
	}

	private JsonValueWriter values(JsonMapper mapper) {
		ObjectWriter writer = StockJsonWriting.objectWriter(this.encoder, mapper, this.dataType, this.mediaType,
				this.hints);
		BatchOutputStream output = new BatchOutputStream();
		// Created from the writer, as the stock encoder creates it for a single value.
		JsonGenerator generator = writer.createGenerator(output, StockJsonWriting.jsonEncoding(this.mediaType));
		return new JsonValueWriter(output, generator, writer.writeValues(generator), false, this.logger, this.hints);
	}

	@Override
	public @Nullable DataBuffer complete(@Nullable DataBuffer batch, DataBufferFactory bufferFactory) {
		return batch;
	}

	@Override
	public void release() {
		JsonValueWriter values = this.values;
		if (values != null) {
			values.release();
		}
	}

}
