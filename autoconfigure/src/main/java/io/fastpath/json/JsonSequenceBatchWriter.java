package io.fastpath.json;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;

/**
 * Writes the values of a {@code Flux} as the stock Jackson encoder does: a JSON array
 * ({@code [} before the first value, {@code ,} between values, {@code ]} after the last,
 * {@code []} for none) or, for a streaming media type, each value followed by the
 * separator. The array's {@code [} is written with the first value or at the end, never
 * before: until then the response is not committed, and an error is an ordinary error
 * response.
 *
 * @author Fastpath
 */
final class JsonSequenceBatchWriter implements BatchWriter<Object> {

	private final JsonValueWriter values;

	/** What follows each value of a stream; {@code null} for an array. */
	private final byte @Nullable [] separator;

	private boolean first = true;

	/**
	 * Create a writer of one body.
	 * @param values writes the JSON of each value
	 * @param separator what follows each value of a stream, or {@code null} for an array
	 */
	JsonSequenceBatchWriter(JsonValueWriter values, byte @Nullable [] separator) {
		this.values = values;
		this.separator = separator;
	}

	@Override
	public void write(Object value, DataBuffer batch) {
		byte[] separator = this.separator;
		if (separator != null) {
			this.values.write(value, batch);
			batch.write(separator);
			return;
		}
		int mark = batch.writePosition();
		batch.write(this.first ? (byte) '[' : (byte) ',');
		try {
			this.values.write(value, batch);
		}
		catch (RuntimeException | Error ex) {
			batch.writePosition(mark);
			throw ex;
		}
		this.first = false;
	}

	@Override
	public @Nullable DataBuffer complete(@Nullable DataBuffer batch, DataBufferFactory bufferFactory) {
		if (this.separator != null) {
			return batch;
		}
		DataBuffer last = (batch != null) ? batch : bufferFactory.allocateBuffer(2);
		if (this.first) {
			last.write((byte) '[');
		}
		last.write((byte) ']');
		return last;
	}

	@Override
	public void release() {
		this.values.release();
	}

}
