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

	/**
	 * Read the whole body as the reader's type, as stock reads it from a stream.
	 * @param reader the reader
	 * @return the value
	 */
	@Nullable Object readValue(ObjectReader reader) {
		return reader.readValue(rewound().asInputStream());
	}

	private DataBuffer rewound() {
		return this.buffer.readPosition(this.start);
	}

	@Override
	public int count(byte value) {
		int count = 0;
		// The NIO views of the buffer's memory, without copying it: one per component.
		try (DataBuffer.ByteBufferIterator views = rewound().readableByteBuffers()) {
			while (views.hasNext()) {
				ByteBuffer view = views.next();
				for (int i = view.position(), end = view.limit(); i < end; i++) {
					if (view.get(i) == value) {
						count++;
					}
				}
			}
		}
		return count;
	}

}
