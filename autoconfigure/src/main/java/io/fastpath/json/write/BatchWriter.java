package io.fastpath.json.write;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;

/**
 * Writes the values of one body into the buffers that {@link ReadyBatches} gathers them
 * in: each value with what goes before it, and what ends the body. One instance per body,
 * called by one thread at a time.
 *
 * @param <T> the type of the values
 * @author Fastpath
 */
interface BatchWriter<T> {

	/**
	 * Write a value, with what goes before and after it, at the end of the batch. When
	 * writing fails, the batch is left as it was before the call.
	 * @param value the value
	 * @param batch the buffer to write into
	 * @throws RuntimeException the error to end the body with, as the stock encoder raises
	 * it (an {@code Error} leaves the batch as it was too)
	 */
	void write(T value, DataBuffer batch);

	/**
	 * The bytes written for the batch: what it holds, and what the writer holds to put
	 * into it when it is {@linkplain #flush flushed}.
	 * @param batch the buffer being written into
	 * @return the size the batch has once flushed
	 */
	default int size(DataBuffer batch) {
		return batch.readableByteCount();
	}

	/**
	 * Put into the batch what the writer holds for it: called before the batch goes out.
	 * @param batch the buffer being written into
	 */
	default void flush(DataBuffer batch) {
	}

	/**
	 * Write what ends the body after its last value.
	 * @param batch the buffer that holds values not emitted yet, or {@code null}
	 * @param bufferFactory the factory to allocate a buffer from when there is none and the
	 * body has an end to write
	 * @return the buffer to emit last (flushed before it goes out), or {@code null} when
	 * there is nothing to emit
	 */
	@Nullable DataBuffer complete(@Nullable DataBuffer batch, DataBufferFactory bufferFactory);

	/**
	 * Release what writing holds (generators, recycled buffers). Called once, when the body
	 * ends for whatever reason; the writer is not used afterwards.
	 */
	void release();

}
