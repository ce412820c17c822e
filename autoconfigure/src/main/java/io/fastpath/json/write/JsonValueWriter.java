package io.fastpath.json.write;

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
 * encoder has. The generator is either flushed into the batch after each value (the
 * stock encoder's own generator, for every mapper setting), or it buffers: it fills its
 * recycled buffer across values and the separators between them, and that buffer goes
 * into the batch when it is full or when the batch goes out, a few large copies where
 * flushing after each value makes two small writes a value (a separator and the value)
 * into the batch, each through the buffer's bounds and reference-count checks.
 * <p>Positions ({@link #mark}, {@link #size}) count what the batch holds and what the
 * generator holds for it, so that a value that fails is taken back whole in both modes.
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
	 * Whether the generator keeps what it writes until it is full or {@link #flush}ed;
	 * else it is flushed after each value, and its first byte dropped when it is the root
	 * value separator (the stock encoder drops it too).
	 */
	private final boolean buffering;

	/**
	 * Whether values are logged: asked once per body, where stock asks for each value
	 * (Spring's HTTP log is a composite whose level check is not free beside the write of
	 * a small value); a level changed during one body applies from the next.
	 */
	private final boolean logValues;

	/** Whether no value was written yet: the only one with no root value separator. */
	private boolean firstValue = true;

	private boolean released;

	/**
	 * Create a writer of values.
	 * @param output where the generator writes
	 * @param generator the generator, writing into {@code output}; when buffering, one with
	 * no root value separator (in place of the default space, which stock drops), no pretty
	 * printer, and a sequence writer that does not flush after each value
	 * @param values the sequence writer over that generator
	 * @param buffering whether the generator is flushed only when full or asked to
	 * @param logger the logger of the encoded values, at debug and trace level
	 * @param hints the hints of the body (log prefix, logging suppressed)
	 */
	JsonValueWriter(BatchOutputStream output, JsonGenerator generator, SequenceWriter values, boolean buffering,
			Log logger, @Nullable Map<String, Object> hints) {
		this.output = output;
		this.generator = generator;
		this.values = values;
		this.buffering = buffering;
		this.logger = logger;
		this.hints = hints;
		this.logValues = logger.isDebugEnabled() && !Hints.isLoggingSuppressed(hints);
	}

	/**
	 * Write a value after what is written, or leave everything as it was and throw the
	 * error the stock encoder would.
	 * @param value the value
	 * @param batch the batch
	 */
	void write(Object value, DataBuffer batch) {
		logValue(value);
		int mark = mark(batch);
		this.output.target(batch);
		try {
			if (this.buffering) {
				this.values.write(value);
				if (this.firstValue) {
					// Stock drops a leading space from every value's bytes: for the values after
					// the first, the root value separator this generator does not write; for the
					// first, a space of its own (written raw), looked for here, once a body.
					flush(batch);
					dropLeadingSpace(batch, mark);
				}
			}
			else {
				this.output.valueStarts();
				this.values.write(value);
				this.values.flush();
			}
		}
		catch (InvalidDefinitionException ex) {
			CodecException failure = new CodecException("Type definition error: " + ex.getType(), ex);
			rollback(batch, mark, failure);
			throw failure;
		}
		catch (JacksonException ex) {
			EncodingException failure = new EncodingException("JSON encoding error: " + ex.getOriginalMessage(), ex);
			rollback(batch, mark, failure);
			throw failure;
		}
		catch (RuntimeException | Error ex) {
			rollback(batch, mark, ex);
			throw ex;
		}
		finally {
			this.output.target(null);
		}
		this.firstValue = false;
	}

	private static void dropLeadingSpace(DataBuffer batch, int start) {
		int end = batch.writePosition();
		if (start == end || batch.getByte(start) != ' ') {
			return;
		}
		byte[] rest = new byte[end - start - 1];
		for (int i = 0; i < rest.length; i++) {
			rest[i] = batch.getByte(start + 1 + i);
		}
		batch.writePosition(start);
		batch.write(rest);
	}

	/**
	 * Write an ASCII character that is not JSON (a separator) after what is written.
	 * @param character the character
	 * @param batch the batch
	 */
	void writeRaw(char character, DataBuffer batch) {
		if (!this.buffering) {
			batch.write((byte) character);
			return;
		}
		this.output.target(batch);
		try {
			this.generator.writeRaw(character);
		}
		finally {
			this.output.target(null);
		}
	}

	/** The position after what is written into the batch, held by the generator or not. */
	int mark(DataBuffer batch) {
		return this.buffering ? batch.writePosition() + this.generator.streamWriteOutputBuffered()
				: batch.writePosition();
	}

	/**
	 * Take back what was written after the given mark. When the generator's buffer could
	 * not reach the batch (the batch could not grow: Jackson empties its buffer before it
	 * writes it out), bytes before the mark are lost with it, and what the batch holds
	 * may end inside a value: it is emptied, so that nothing of it goes out, and why it
	 * could not is added to the write's failure, which the caller goes on to throw.
	 * @param batch the batch
	 * @param mark the position to go back to ({@link #mark})
	 * @param failure why the write failed
	 */
	void rollback(DataBuffer batch, int mark, Throwable failure) {
		boolean flushed;
		try {
			flush(batch);
			flushed = true;
		}
		catch (RuntimeException | Error ex) {
			if (ex != failure) {
				failure.addSuppressed(ex);
			}
			flushed = false;
		}
		if (flushed && batch.writePosition() >= mark) {
			batch.writePosition(mark);
		}
		else {
			batch.writePosition(batch.readPosition());
		}
	}

	/** The bytes written for the batch, held by the generator or not. */
	int size(DataBuffer batch) {
		return this.buffering ? batch.readableByteCount() + this.generator.streamWriteOutputBuffered()
				: batch.readableByteCount();
	}

	/** Put into the batch what the generator holds for it. */
	void flush(DataBuffer batch) {
		if (!this.buffering || this.generator.streamWriteOutputBuffered() == 0) {
			return;
		}
		this.output.target(batch);
		try {
			this.generator.flush();
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
