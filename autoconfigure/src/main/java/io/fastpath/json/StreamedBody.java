package io.fastpath.json;

import java.nio.ByteBuffer;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.ObjectReader;

import org.springframework.core.io.buffer.DataBuffer;

/**
 * A whole body in a buffer that is not one heap array (Netty's direct memory, a composite
 * of parts): streamed to the parser through {@link DataBuffer#asInputStream()}, which
 * copies a few kilobytes at a time into the parser's recycled buffer, not the body into
 * a new array. Each parser starts where the body started.
 *
 * @author Fastpath
 */
final class StreamedBody implements JsonBody {

	private final DataBuffer buffer;

	private final int start;

	StreamedBody(DataBuffer buffer) {
		this.buffer = buffer;
		this.start = buffer.readPosition();
	}

	@Override
	public JsonParser parser(ObjectReader reader) {
		return reader.createParser(rewound().asInputStream());
	}

	/** Read the whole body as the reader's type, streamed, as stock reads it. */
	@Override
	public @Nullable Object readValue(ObjectReader reader) {
		return reader.readValue(rewound().asInputStream());
	}

	private DataBuffer rewound() {
		return this.buffer.readPosition(this.start);
	}

	/**
	 * Count the occurrences of a byte, eight bytes per read of the memory: one read per
	 * byte of direct memory costs as much as parsing doubles does, and neither Spring's
	 * {@code DataBuffer} nor Netty offers a count (their {@code indexOf} costs a call, and
	 * on Spring's Netty buffer an allocation, per match). The NIO views of the buffer are
	 * taken without copying it, one per component.
	 */
	@Override
	public int count(byte value) {
		long pattern = (value & 0xFFL) * 0x0101010101010101L;
		int count = 0;
		try (DataBuffer.ByteBufferIterator views = rewound().readableByteBuffers()) {
			while (views.hasNext()) {
				ByteBuffer view = views.next();
				int i = view.position();
				int end = view.limit();
				for (; i + Long.BYTES <= end; i += Long.BYTES) {
					count += Long.bitCount(zeroBytes(view.getLong(i) ^ pattern));
				}
				for (; i < end; i++) {
					if (view.get(i) == value) {
						count++;
					}
				}
			}
		}
		return count;
	}

	/**
	 * The high bit of each byte of the word that is zero, and no other bit: a byte's low
	 * seven bits plus 0x7F reach its high bit unless they are all zero, and never carry
	 * into the next byte.
	 */
	static long zeroBytes(long word) {
		long low = 0x7F7F7F7F7F7F7F7FL;
		return ~(((word & low) + low) | word | low);
	}

}
