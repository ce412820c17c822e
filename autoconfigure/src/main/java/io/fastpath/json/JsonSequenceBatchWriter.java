package io.fastpath.json;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;

/**
 * Writes the values of a {@code Flux} as the stock Jackson encoder does: a JSON array
 * ({@code [} before the first value, {@code ,} between values, {@code ]} after the last,
 * {@code []} for none) or, for a streaming media type, each value followed by a
 * newline. The array's {@code [} is written with the first value or at the end, never
 * before: until then the response is not committed, and an error is an ordinary error
 * response.
 *
 * @author Fastpath
 */
final class JsonSequenceBatchWriter implements BatchWriter<Object> {

	private final JsonValueWriter values;

	/** Whether the body is a stream: each value followed by a newline, not an array. */
	private final boolean stream;

	private boolean first = true;

	/**
	 * Create a writer of one body.
	 * @param values writes the JSON of each value
	 * @param stream whether the body is a stream of values, each followed by a newline,
	 * rather than an array
	 */
	JsonSequenceBatchWriter(JsonValueWriter values, boolean stream) {
		this.values = values;
		this.stream = stream;
	}

	@Override
	public void write(Object value, DataBuffer batch) {
		int mark = this.values.mark(batch);
		try {
			if (this.stream) {
				this.values.write(value, batch);
				this.values.writeRaw('\n', batch);
				return;
			}
			this.values.writeRaw(this.first ? '[' : ',', batch);
			this.values.write(value, batch);
		}
		catch (RuntimeException | Error ex) {
			this.values.rollback(batch, mark, ex);
			throw ex;
		}
		this.first = false;
	}

	@Override
	public int size(DataBuffer batch) {
		return this.values.size(batch);
	}

	@Override
	public void flush(DataBuffer batch) {
		this.values.flush(batch);
	}

	@Override
	public @Nullable DataBuffer complete(@Nullable DataBuffer batch, DataBufferFactory bufferFactory) {
		if (this.stream) {
			return batch;
		}
		DataBuffer last = (batch != null) ? batch : bufferFactory.allocateBuffer(2);
		if (this.first) {
			this.values.writeRaw('[', last);
		}
		this.values.writeRaw(']', last);
		return last;
	}

	@Override
	public void release() {
		this.values.release();
	}

}
