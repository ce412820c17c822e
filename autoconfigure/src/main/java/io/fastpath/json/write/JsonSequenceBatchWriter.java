package io.fastpath.json.write;

import java.util.function.Function;

import io.fastpath.json.BlackbirdTwins;

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
 * <p>Values written with a twin of the application's mapper ({@link BlackbirdTwins}) are
 * written with the application's mapper from the value the twin fails on: that value is
 * taken back from the batch whole, and written again, with a generator of its own for
 * the rest of the body.
 *
 * @author Fastpath
 */
final class JsonSequenceBatchWriter implements BatchWriter<Object> {

	private JsonValueWriter values;

	/** Whether the body is a stream: each value followed by a newline, not an array. */
	private final boolean stream;

	/**
	 * Makes the writer of the application's mapper to go on with when the twin that
	 * {@link #values} writes with fails, given the twin's failure; {@code null} when not
	 * writing with a twin, or no longer.
	 */
	private @Nullable Function<Throwable, JsonValueWriter> fallback;

	private boolean first = true;

	/**
	 * Create a writer of one body.
	 * @param values writes the JSON of each value
	 * @param stream whether the body is a stream of values, each followed by a newline,
	 * rather than an array
	 * @param fallback when {@code values} writes with a twin, makes the writer of the
	 * application's mapper to go on with, given the twin's failure; else {@code null}
	 */
	JsonSequenceBatchWriter(JsonValueWriter values, boolean stream,
			@Nullable Function<Throwable, JsonValueWriter> fallback) {
		this.values = values;
		this.stream = stream;
		this.fallback = fallback;
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
			Function<Throwable, JsonValueWriter> fallback = this.fallback;
			// Only a batch that holds what it held before the value (the twin's generator
			// emptied into it) can be written on; else the body ends with the failure.
			if (fallback == null || !BlackbirdTwins.isTwinFailure(ex) || this.values.mark(batch) != mark) {
				throw ex;
			}
			this.fallback = null;
			JsonValueWriter twin = this.values;
			this.values = fallback.apply(ex);
			twin.release();
			write(value, batch);
			return;
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
