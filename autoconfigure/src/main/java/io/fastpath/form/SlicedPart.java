package io.fastpath.form;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

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
 * A part held in memory as the pieces of the request buffers it arrived in, not copied.
 * They are released by {@link #delete()}, which the exchange calls on every part of
 * {@code getMultipartData()} when the request ends (and the multipart reader when the
 * read fails). Each {@link #content()} subscription gets its own retained views of them,
 * so the content can be read more than once, and each view is the subscriber's to release.
 *
 * @author Fastpath
 */
class SlicedPart implements Part {

	private final PartHeaders headers;

	private final List<DataBuffer> pieces;

	// a field updater, not an AtomicBoolean: a form has a part per field
	private static final AtomicIntegerFieldUpdater<SlicedPart> DELETED = AtomicIntegerFieldUpdater
		.newUpdater(SlicedPart.class, "deleted");

	private volatile int deleted;

	SlicedPart(PartHeaders headers, List<DataBuffer> pieces) {
		this.headers = headers;
		this.pieces = pieces;
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

	List<DataBuffer> pieces() {
		return this.pieces;
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
