package io.fastpath.multipart;

import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.http.codec.multipart.FilePart;
import org.springframework.http.codec.multipart.FormFieldPart;

import io.fastpath.multipart.scan.PartHeaders;

/**
 * A part within the in-memory limit, as Spring's: its bytes copied out of the request
 * buffers into an array of its own when it completes (a text field decoded to its value
 * then, once), the buffers released at once. Such a part holds nothing of the request's
 * buffer pool, so whoever reaches it, on whatever path, and whenever the request ends, a
 * reset or a failed handler included, owes no release: {@link #delete()} does nothing, as
 * Spring's, and the part can be read after the request as Spring's can. While the part
 * is being read it is still the pieces of the buffers it arrived in ({@link PartAssembly}):
 * one copy at its end, as Spring's reader makes, and none before.
 *
 * @author Fastpath
 */
class MemoryPart extends HeadersPart {

	private final byte[] content;

	MemoryPart(PartHeaders headers, byte[] content) {
		super(headers);
		this.content = content;
	}

	/**
	 * A part of the given headers whose content is the given pieces: a {@link FilePart} if
	 * its {@code Content-Disposition} has a filename, as Spring's.
	 * @param headers the headers
	 * @param file whether the disposition has a filename
	 * @param pieces the content, released here
	 * @return the part
	 */
	static MemoryPart of(PartHeaders headers, boolean file, List<DataBuffer> pieces) {
		byte[] content = copy(pieces);
		return file ? new File(headers, content) : new MemoryPart(headers, content);
	}

	/**
	 * A text field of the given headers whose value is the given pieces, decoded in the
	 * charset of its {@code Content-Type}, else UTF-8, as Spring's.
	 * @param headers the headers
	 * @param pieces the content, released here
	 * @return the field
	 */
	static MemoryPart field(PartHeaders headers, List<DataBuffer> pieces) {
		if (pieces.size() != 1) {
			return new Field(headers, new String(copy(pieces), charset(headers.contentType())));
		}
		// decoded where it is: a direct buffer's bytes need no array of their own
		DataBuffer piece = pieces.get(0);
		try {
			return new Field(headers,
					piece.toString(piece.readPosition(), piece.readableByteCount(), charset(headers.contentType())));
		}
		finally {
			DataBufferUtils.release(piece);
		}
	}

	/**
	 * A text field of the given headers whose value is the {@code length} bytes from
	 * {@code index} of a buffer, as {@link #field(PartHeaders, List)}.
	 * @param headers the headers
	 * @param buffer the buffer, released here
	 * @param index where the value starts in it
	 * @param length its length
	 * @return the field
	 */
	static MemoryPart field(PartHeaders headers, DataBuffer buffer, int index, int length) {
		try {
			return new Field(headers, buffer.toString(index, length, charset(headers.contentType())));
		}
		finally {
			DataBufferUtils.release(buffer);
		}
	}

	/**
	 * A part of the given headers whose content is the {@code length} bytes from
	 * {@code index} of a buffer, as {@link #of(PartHeaders, boolean, List)}.
	 * @param headers the headers
	 * @param file whether the disposition has a filename
	 * @param buffer the buffer, released here
	 * @param index where the content starts in it
	 * @param length its length
	 * @return the part
	 */
	static MemoryPart of(PartHeaders headers, boolean file, DataBuffer buffer, int index, int length) {
		byte[] content = new byte[length];
		try {
			buffer.toByteBuffer(index, ByteBuffer.wrap(content), 0, length);
		}
		finally {
			DataBufferUtils.release(buffer);
		}
		return file ? new File(headers, content) : new MemoryPart(headers, content);
	}

	/** The bytes of the pieces in one array; the pieces released, copied or not. */
	private static byte[] copy(List<DataBuffer> pieces) {
		try {
			long length = 0;
			for (int i = 0; i < pieces.size(); i++) {
				length += pieces.get(i).readableByteCount();
			}
			// within the in-memory limit, an int
			byte[] bytes = new byte[Math.toIntExact(length)];
			ByteBuffer target = ByteBuffer.wrap(bytes);
			int at = 0;
			for (int i = 0; i < pieces.size(); i++) {
				DataBuffer piece = pieces.get(i);
				int readable = piece.readableByteCount();
				piece.toByteBuffer(piece.readPosition(), target, at, readable);
				at += readable;
			}
			return bytes;
		}
		finally {
			for (int i = 0; i < pieces.size(); i++) {
				DataBufferUtils.release(pieces.get(i));
			}
		}
	}

	private static Charset charset(@Nullable MediaType contentType) {
		Charset charset = (contentType != null) ? contentType.getCharset() : null;
		return (charset != null) ? charset : StandardCharsets.UTF_8;
	}

	/**
	 * The content as one heap buffer, a new one for each subscriber, so that each reads it
	 * from the start: Spring's part hands out one buffer, read once.
	 */
	@Override
	public Flux<DataBuffer> content() {
		return Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(this.content)));
	}

	/** Nothing to delete: the content is on the heap, as Spring's in-memory part's. */
	@Override
	public Mono<Void> delete() {
		return Mono.empty();
	}

	/** A text field: its value decoded once, as it completed, its bytes not kept. */
	static final class Field extends MemoryPart implements FormFieldPart {

		private static final byte[] NO_BYTES = {};

		private final String value;

		Field(PartHeaders headers, String value) {
			super(headers, NO_BYTES);
			this.value = value;
		}

		@Override
		public String value() {
			return this.value;
		}

		/** The value encoded as it came, as Spring's field gives its content. */
		@Override
		public Flux<DataBuffer> content() {
			return Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance
				.wrap(this.value.getBytes(charset(partHeaders().contentType())))));
		}

	}

	/** A file part in memory: written to its destination from its bytes. */
	static final class File extends MemoryPart implements FilePart {

		File(PartHeaders headers, byte[] content) {
			super(headers, content);
		}

		@Override
		public String filename() {
			return filenameOfFile();
		}

		@Override
		public Mono<Void> transferTo(Path dest) {
			return DataBufferUtils.write(content(), dest);
		}

	}

}
