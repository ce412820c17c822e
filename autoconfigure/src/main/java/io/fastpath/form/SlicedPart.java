package io.fastpath.form;

import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import org.jspecify.annotations.Nullable;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.codec.multipart.FilePart;
import org.springframework.http.codec.multipart.Part;
import org.springframework.util.Assert;

/**
 * A part held in memory as the pieces of the request buffers it arrived in, not copied:
 * a list of pieces, or, for a part that arrived within one Netty buffer (a text field of
 * a small form), that buffer retained and where in it the part is, which saves the view
 * and the list a piece of its own takes (about 90 B a part). They are released by
 * {@link #delete()}, which the exchange calls on every part of {@code getMultipartData()}
 * when the request ends (and the multipart reader when the read fails). Each
 * {@link #content()} subscription gets its own retained views of them, so the content can
 * be read more than once, and each view is the subscriber's to release.
 *
 * @author Fastpath
 */
class SlicedPart implements Part {

	private final PartHeaders headers;

	/** The pieces, or none while the part is {@link #viewed}. */
	private final List<DataBuffer> pieces;

	/** The one buffer the part is in, retained, or {@code null} if it is its pieces. */
	private final @Nullable DataBuffer viewed;

	private final int viewIndex;

	private final int viewLength;

	// a field updater, not an AtomicBoolean: a form has a part per field
	private static final AtomicIntegerFieldUpdater<SlicedPart> DELETED = AtomicIntegerFieldUpdater
		.newUpdater(SlicedPart.class, "deleted");

	private volatile int deleted;

	/** A part of the given pieces, its to release. */
	SlicedPart(PartHeaders headers, List<DataBuffer> pieces) {
		this.headers = headers;
		this.pieces = pieces;
		this.viewed = null;
		this.viewIndex = 0;
		this.viewLength = 0;
	}

	/** A part of the {@code length} bytes from {@code index} of a buffer retained for it. */
	SlicedPart(PartHeaders headers, DataBuffer viewed, int index, int length) {
		this.headers = headers;
		this.pieces = List.of();
		this.viewed = viewed;
		this.viewIndex = index;
		this.viewLength = length;
	}

	/**
	 * A part of the given headers and content: a {@link FilePart} if its
	 * {@code Content-Disposition} has a filename, as Spring's.
	 * @param headers the headers
	 * @param file whether the disposition has a filename
	 * @param pieces the content
	 */
	static SlicedPart of(PartHeaders headers, boolean file, List<DataBuffer> pieces) {
		return file ? new File(headers, pieces) : new SlicedPart(headers, pieces);
	}

	/**
	 * A part of the given headers and the {@code length} bytes from {@code index} of a buffer
	 * retained for it, as {@link #of(PartHeaders, boolean, List)}.
	 * @param headers the headers
	 * @param file whether the disposition has a filename
	 * @param viewed the buffer
	 * @param index where the content starts in it
	 * @param length the length of the content
	 */
	static SlicedPart of(PartHeaders headers, boolean file, DataBuffer viewed, int index, int length) {
		return file ? new File(headers, viewed, index, length) : new SlicedPart(headers, viewed, index, length);
	}

	@Override
	public String name() {
		return this.headers.name();
	}

	@Override
	public HttpHeaders headers() {
		return this.headers.headers();
	}

	PartHeaders partHeaders() {
		return this.headers;
	}

	@Override
	@SuppressWarnings("deprecation")
	public Flux<DataBuffer> content() {
		// retainedSlice, deprecated for split(), because split() would cut the held piece:
		// a view per subscriber leaves it whole for the next one
		return Flux.defer(() -> {
			Assert.state(!isDeleted(), "Part deleted");
			DataBuffer buffer = this.viewed;
			if (buffer != null) {
				return Flux.just(buffer.retainedSlice(this.viewIndex, this.viewLength));
			}
			return Flux.fromIterable(this.pieces)
				.map((piece) -> piece.retainedSlice(piece.readPosition(), piece.readableByteCount()));
		});
	}

	@Override
	public Mono<Void> delete() {
		return new Deletion(this);
	}

	/** Release the pieces, once however often it is called. */
	void release() {
		if (DELETED.compareAndSet(this, 0, 1)) {
			DataBuffer buffer = this.viewed;
			if (buffer != null) {
				DataBufferUtils.release(buffer);
				return;
			}
			// indexed: forEach of the piece's List.of left an iterator per part in a server's profile
			List<DataBuffer> held = this.pieces;
			for (int i = 0; i < held.size(); i++) {
				DataBufferUtils.release(held.get(i));
			}
		}
	}

	boolean isDeleted() {
		return this.deleted != 0;
	}

	/**
	 * The content as text: decoded from the buffer in place when it is in one.
	 * @param charset its charset
	 * @return the text
	 */
	String decode(Charset charset) {
		Assert.state(!isDeleted(), "Part deleted before its value was read");
		DataBuffer buffer = this.viewed;
		if (buffer != null) {
			return buffer.toString(this.viewIndex, this.viewLength, charset);
		}
		List<DataBuffer> held = this.pieces;
		if (held.isEmpty()) {
			return "";
		}
		if (held.size() == 1) {
			DataBuffer piece = held.get(0);
			return piece.toString(piece.readPosition(), piece.readableByteCount(), charset);
		}
		int length = 0;
		for (DataBuffer piece : held) {
			length += piece.readableByteCount();
		}
		byte[] bytes = new byte[length];
		int at = 0;
		for (DataBuffer piece : held) {
			int readable = piece.readableByteCount();
			piece.toByteBuffer(piece.readPosition(), ByteBuffer.wrap(bytes), at, readable);
			at += readable;
		}
		return new String(bytes, charset);
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "{" + this.headers.disposition().getName() + "}";
	}

	/**
	 * What {@link #delete()} gives: the pieces released when it is subscribed to. One
	 * object, where {@code Mono.fromRunnable(this::release)} is three with its
	 * subscription: Spring deletes every part of every multipart request when it ends
	 * (measured: 160 B less for a form of 5 fields).
	 */
	private static final class Deletion extends Mono<Void> {

		private final SlicedPart part;

		Deletion(SlicedPart part) {
			this.part = part;
		}

		@Override
		public void subscribe(CoreSubscriber<? super Void> actual) {
			try {
				this.part.release();
			}
			catch (RuntimeException ex) {
				Operators.error(actual, ex);
				return;
			}
			Operators.complete(actual);
		}

	}

	/** A file part held in memory: written to its destination from the pieces. */
	static final class File extends SlicedPart implements FilePart {

		File(PartHeaders headers, List<DataBuffer> pieces) {
			super(headers, pieces);
		}

		File(PartHeaders headers, DataBuffer viewed, int index, int length) {
			super(headers, viewed, index, length);
		}

		@Override
		public String filename() {
			String filename = partHeaders().filename();
			Assert.state(filename != null, "No filename found");
			return filename;
		}

		@Override
		public Mono<Void> transferTo(Path dest) {
			return DataBufferUtils.write(content(), dest);
		}

	}

}
