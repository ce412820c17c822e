package io.fastpath.json;

import java.util.Map;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.SequenceWriter;
import tools.jackson.databind.exc.InvalidDefinitionException;

import org.springframework.core.codec.CodecException;
import org.springframework.core.codec.EncodingException;
import org.springframework.core.codec.Hints;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.log.LogFormatUtils;

/**
 * Writes the JSON values of one body, one after another, into the batches that hold
 * them: one generator and one {@link SequenceWriter} for the whole body, as the stock
 * encoder has, flushed after each value into the batch, so that a value's bytes are
 * copied once, from the generator's recycled buffer into the batch.
 *
 * @author Fastpath
 */
final class JsonValueWriter {

	private final BatchOutputStream output;

	private final JsonGenerator generator;

	private final SequenceWriter values;

	private final Log logger;

	private final @Nullable Map<String, Object> hints;

	/**
	 * Whether values are logged: asked once per body, where stock asks for each value
	 * (Spring's HTTP log is a composite whose level check showed as 4% of a 1000-value
	 * body's time in a profile); a level changed during one body applies from the next.
	 */
	private final boolean logValues;

	private boolean released;

	/**
	 * Create a writer of values.
	 * @param output where the generator writes
	 * @param generator the generator, writing into {@code output}
	 * @param values the sequence writer over that generator
	 * @param logger the logger of the encoded values, at debug and trace level
	 * @param hints the hints of the body (log prefix, logging suppressed)
	 */
	JsonValueWriter(BatchOutputStream output, JsonGenerator generator, SequenceWriter values, Log logger,
			@Nullable Map<String, Object> hints) {
		this.output = output;
		this.generator = generator;
		this.values = values;
		this.logger = logger;
		this.hints = hints;
		this.logValues = logger.isDebugEnabled() && !Hints.isLoggingSuppressed(hints);
	}

	/**
	 * Write a value at the end of the batch, or leave the batch as it was and throw the
	 * error the stock encoder would.
	 * @param value the value
	 * @param batch the batch
	 */
	void write(Object value, DataBuffer batch) {
		logValue(value);
		int mark = batch.writePosition();
		this.output.target(batch);
		this.output.valueStarts();
		try {
			this.values.write(value);
			this.values.flush();
		}
		catch (InvalidDefinitionException ex) {
			batch.writePosition(mark);
			throw new CodecException("Type definition error: " + ex.getType(), ex);
		}
		catch (JacksonException ex) {
			batch.writePosition(mark);
			throw new EncodingException("JSON encoding error: " + ex.getOriginalMessage(), ex);
		}
		catch (RuntimeException | Error ex) {
			batch.writePosition(mark);
			throw ex;
		}
		finally {
			this.output.target(null);
		}
	}

	private void logValue(Object value) {
		if (this.logValues) {
			LogFormatUtils.traceDebug(this.logger, (traceOn) -> {
				String formatted = LogFormatUtils.formatValue(value, !traceOn);
				return Hints.getLogPrefix(this.hints) + "Encoding [" + formatted + "]";
			});
		}
	}

	/** Close the generator, which gives its recycled buffers back; once. */
	void release() {
		if (this.released) {
			return;
		}
		this.released = true;
		try {
			this.generator.close();
		}
		catch (JacksonException ex) {
			this.logger.error("Could not close Encoder resources", ex);
		}
	}

}
