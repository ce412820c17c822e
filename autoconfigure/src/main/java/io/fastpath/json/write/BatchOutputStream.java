package io.fastpath.json.write;

import java.io.OutputStream;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.buffer.DataBuffer;

/**
 * Where a generator writes the values of a body: straight into the batch at hand, with
 * no array of its own in between. Like the stock encoder, it drops the space that
 * Jackson's {@code SequenceWriter} writes before every value but the first (the root
 * value separator): the first byte of a value, when it is a space.
 *
 * @author Fastpath
 */
final class BatchOutputStream extends OutputStream {

	private @Nullable DataBuffer target;

	private boolean valueStart;

	/**
	 * Direct what the generator writes next into the given buffer, or nowhere.
	 * @param target the buffer, or {@code null} to drop what is written (a generator that
	 * is closed after an error may write the rest of a value it had begun)
	 */
	void target(@Nullable DataBuffer target) {
		this.target = target;
	}

	/** A value begins: its first byte is dropped when it is a space. */
	void valueStarts() {
		this.valueStart = true;
	}

	@Override
	public void write(int b) {
		DataBuffer target = this.target;
		if (target == null) {
			return;
		}
		if (this.valueStart) {
			this.valueStart = false;
			if (b == ' ') {
				return;
			}
		}
		target.write((byte) b);
	}

	@Override
	public void write(byte[] bytes, int offset, int length) {
		DataBuffer target = this.target;
		if (target == null || length == 0) {
			return;
		}
		int from = offset;
		int count = length;
		if (this.valueStart) {
			this.valueStart = false;
			if (bytes[from] == ' ') {
				from++;
				count--;
			}
		}
		target.write(bytes, from, count);
	}

}
