package io.fastpath.json;

import java.io.InputStream;
import java.util.List;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.ObjectReader;

import org.springframework.core.io.buffer.DataBuffer;

/**
 * A whole body held in heap arrays, read in place: one array slice is parsed directly,
 * several are streamed to the parser without joining them first. Reading does not consume
 * the body, so a fast path that gives up can hand it to Databind.
 *
 * @author Fastpath
 */
final class HeapBody implements JsonBody {

	private final HeapBytes[] slices;

	private HeapBody(HeapBytes[] slices) {
		this.slices = slices;
	}

	/**
	 * The body of the given buffers, or {@code null} if one of them is not on the heap.
	 * @param buffers the buffers of the body, in order
	 * @return the body, or {@code null}
	 */
	static @Nullable HeapBody of(List<? extends DataBuffer> buffers) {
		HeapBytes[] slices = new HeapBytes[buffers.size()];
		for (int i = 0; i < slices.length; i++) {
			HeapBytes slice = HeapBytes.of(buffers.get(i));
			if (slice == null) {
				return null;
			}
			slices[i] = slice;
		}
		return new HeapBody(slices);
	}

	/**
	 * The body of one buffer, or {@code null} if it is not on the heap.
	 * @param buffer the buffer
	 * @return the body, or {@code null}
	 */
	static @Nullable HeapBody of(DataBuffer buffer) {
		HeapBytes slice = HeapBytes.of(buffer);
		return (slice != null) ? new HeapBody(new HeapBytes[] { slice }) : null;
	}

	@Override
	public int count(byte value) {
		int count = 0;
		for (HeapBytes slice : this.slices) {
			byte[] array = slice.array();
			for (int i = slice.offset(), end = slice.offset() + slice.length(); i < end; i++) {
				if (array[i] == value) {
					count++;
				}
			}
		}
		return count;
	}

	@Override
	public JsonParser parser(ObjectReader reader) {
		if (this.slices.length == 1) {
			HeapBytes slice = this.slices[0];
			return reader.createParser(slice.array(), slice.offset(), slice.length());
		}
		return reader.createParser(new SlicesInputStream(this.slices));
	}

	@Override
	public @Nullable Object readValue(ObjectReader reader) {
		if (this.slices.length == 1) {
			HeapBytes slice = this.slices[0];
			return reader.readValue(slice.array(), slice.offset(), slice.length());
		}
		return reader.readValue(new SlicesInputStream(this.slices));
	}

	/** Streams array slices in order, without copying them into one. */
	private static final class SlicesInputStream extends InputStream {

		private final HeapBytes[] slices;

		private int slice;

		private int position;

		SlicesInputStream(HeapBytes[] slices) {
			this.slices = slices;
		}

		@Override
		public int read() {
			while (this.slice < this.slices.length) {
				HeapBytes current = this.slices[this.slice];
				if (this.position < current.length()) {
					return current.array()[current.offset() + this.position++] & 0xFF;
				}
				this.slice++;
				this.position = 0;
			}
			return -1;
		}

		@Override
		public int read(byte[] target, int offset, int length) {
			while (this.slice < this.slices.length) {
				HeapBytes current = this.slices[this.slice];
				int available = current.length() - this.position;
				if (available > 0) {
					int count = Math.min(available, length);
					System.arraycopy(current.array(), current.offset() + this.position, target, offset, count);
					this.position += count;
					return count;
				}
				this.slice++;
				this.position = 0;
			}
			return (length == 0) ? 0 : -1;
		}

	}

}
