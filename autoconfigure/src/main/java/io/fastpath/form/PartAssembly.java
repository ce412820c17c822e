package io.fastpath.form;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.http.codec.multipart.Part;

/**
 * The parts of one multipart body as {@link MultipartScanner} finds them, with Spring's
 * limits and its choice of part: a text field (no filename, no type or
 * {@code text/plain}) is kept as its pieces up to the in-memory limit and fails above it;
 * any other part is kept as its pieces up to that limit and goes to a temporary file
 * above it, up to the disk limit. File writes are queued in order and run on the
 * blocking scheduler, no more of the body being read meanwhile: once
 * {@value #WRITE_BATCH} bytes are queued, before the parts completed by a buffer are
 * handed out, and at the end of the body. Each run is two thread hops, so writing each
 * buffer of the body as it comes (about 8 KB on Reactor Netty) made a 4 MB upload slower
 * than stock's; the batch holds at most that many bytes of the request's own buffers.
 * {@link #dispose()} releases and deletes all that was not handed out.
 *
 * @author Fastpath
 */
final class PartAssembly implements MultipartScanner.Parts {

	private enum Kind {

		FIELD, MEMORY, FILE

	}

	/** A piece to write to a spool, or, without one, the spool to close. */
	private record Write(SpooledPart.Spool spool, @Nullable DataBuffer piece) {
	}

	private final MultipartSettings settings;

	private final MultipartScanner scanner;

	private @Nullable DataBufferFactory factory;

	private int count;

	private @Nullable PartHeaders headers;

	private Kind kind = Kind.FIELD;

	private List<DataBuffer> pieces = new ArrayList<>(1);

	private long size;

	private SpooledPart.@Nullable Spool spool;

	/** Bytes queued to be written past which the writes run before more of the body is read. */
	static final int WRITE_BATCH = 256 * 1024;

	private final ArrayDeque<Write> writes = new ArrayDeque<>();

	/** Bytes of the pieces in {@link #writes}. */
	private long queuedBytes;

	private final ArrayDeque<Part> completed = new ArrayDeque<>();

	private boolean disposed;

	PartAssembly(byte[] boundary, MultipartSettings settings) {
		this.settings = settings;
		this.scanner = new MultipartScanner(boundary, settings.maxHeadersSize(), settings.headersCharset(), this);
	}

	/**
	 * Return whether the given buffer is to be read: not once the closing boundary was
	 * read, when it is released (the rest of the body is epilogue, and
	 * {@code takeWhile}, which stops the body at it, does not discard it).
	 * @param buffer the next buffer of the body
	 * @return whether to read it
	 */
	synchronized boolean isReading(DataBuffer buffer) {
		if (this.scanner.isDone() || this.disposed) {
			DataBufferUtils.release(buffer);
			return false;
		}
		return true;
	}

	/**
	 * Read the next buffer of the body.
	 * @param buffer the buffer, released here
	 * @return the parts it completed, once their files are written; or the error
	 */
	synchronized Flux<Part> feed(DataBuffer buffer) {
		if (this.disposed) {
			DataBufferUtils.release(buffer);
			return Flux.empty();
		}
		if (this.factory == null) {
			this.factory = buffer.factory();
		}
		try {
			this.scanner.feed(buffer);
		}
		catch (RuntimeException ex) {
			return Flux.error(ex);
		}
		return handOut(false);
	}

	/**
	 * The body ended.
	 * @return the parts still to hand out, or the error of a body not closed
	 */
	synchronized Flux<Part> finish() {
		if (this.disposed) {
			return Flux.empty();
		}
		try {
			this.scanner.complete();
		}
		catch (RuntimeException ex) {
			return Flux.error(ex);
		}
		return handOut(true);
	}

	private Flux<Part> handOut(boolean end) {
		Flux<Part> parts = Flux.defer(() -> Flux.fromIterable(takeCompleted()));
		if (this.writes.isEmpty() || (!end && this.completed.isEmpty() && this.queuedBytes < WRITE_BATCH)) {
			return parts;
		}
		// the directory first (stock's temporary one is created on first use, on the blocking
		// scheduler), then the writes, on that scheduler
		return this.settings.fileStorageDirectory()
			.flatMap((directory) -> Mono.fromRunnable(() -> write(directory))
				.subscribeOn(this.settings.blockingScheduler()))
			.thenMany(parts);
	}

	private synchronized void write(Path directory) {
		Write write;
		while (!this.disposed && (write = this.writes.poll()) != null) {
			DataBuffer piece = write.piece();
			if (piece != null) {
				this.queuedBytes -= piece.readableByteCount();
				write.spool().write(piece, directory);
			}
			else {
				write.spool().close();
			}
		}
	}

	private synchronized List<Part> takeCompleted() {
		if (this.disposed || this.completed.isEmpty()) {
			return List.of();
		}
		List<Part> parts = new ArrayList<>(this.completed);
		this.completed.clear();
		return parts;
	}

	@Override
	public void headers(PartHeaders headers) {
		this.count++;
		int maxParts = this.settings.maxParts();
		if (maxParts > 0 && this.count > maxParts) {
			throw new TooManyPartsException(this.count, maxParts);
		}
		this.headers = headers;
		this.kind = isFormField(headers) ? Kind.FIELD : Kind.MEMORY;
		this.size = 0;
	}

	private static boolean isFormField(PartHeaders headers) {
		MediaType contentType = headers.contentType();
		return (contentType == null || MediaType.TEXT_PLAIN.equalsTypeAndSubtype(contentType))
				&& headers.disposition().getFilename() == null;
	}

	@Override
	public void content(DataBuffer piece) {
		this.size += piece.readableByteCount();
		int maxInMemory = this.settings.maxInMemorySize();
		switch (this.kind) {
			case FIELD -> {
				if (fieldTooLarge()) {
					DataBufferUtils.release(piece);
					throw fieldLimit();
				}
				this.pieces.add(piece);
			}
			case MEMORY -> {
				if (maxInMemory == -1 || this.size <= maxInMemory) {
					this.pieces.add(piece);
				}
				else {
					checkDiskUsage(piece);
					SpooledPart.Spool target = new SpooledPart.Spool();
					this.spool = target;
					this.kind = Kind.FILE;
					for (DataBuffer held : this.pieces) {
						queue(target, held);
					}
					this.pieces = new ArrayList<>(1);
					queue(target, piece);
				}
			}
			case FILE -> {
				checkDiskUsage(piece);
				queue(currentSpool(), piece);
			}
		}
	}

	private void queue(SpooledPart.Spool target, DataBuffer piece) {
		this.writes.add(new Write(target, piece));
		this.queuedBytes += piece.readableByteCount();
	}

	/** Spring's test: a text field fails at the in-memory limit, not above it. */
	private boolean fieldTooLarge() {
		int maxInMemory = this.settings.maxInMemorySize();
		return maxInMemory != -1 && this.size >= maxInMemory;
	}

	private DataBufferLimitException fieldLimit() {
		return new DataBufferLimitException("Form field value exceeded the memory usage limit of "
				+ this.settings.maxInMemorySize() + " bytes");
	}

	private void checkDiskUsage(DataBuffer piece) {
		long maxDisk = this.settings.maxDiskUsagePerPart();
		if (maxDisk != -1 && this.size > maxDisk) {
			DataBufferUtils.release(piece);
			throw new DataBufferLimitException("Part exceeded the disk usage limit of " + maxDisk + " bytes");
		}
	}

	private SpooledPart.Spool currentSpool() {
		SpooledPart.Spool current = this.spool;
		if (current == null) {
			throw new IllegalStateException("No file for the part");
		}
		return current;
	}

	@Override
	public void end() {
		PartHeaders partHeaders = this.headers;
		if (partHeaders == null) {
			throw new IllegalStateException("No part");
		}
		switch (this.kind) {
			case FIELD -> {
				if (fieldTooLarge()) {
					throw fieldLimit();
				}
				this.completed.add(new SlicedFormFieldPart(partHeaders, this.pieces));
			}
			case MEMORY -> this.completed.add(SlicedPart.of(partHeaders, this.pieces));
			case FILE -> {
				SpooledPart.Spool target = currentSpool();
				this.writes.add(new Write(target, null));
				DataBufferFactory bufferFactory = this.factory;
				if (bufferFactory == null) {
					throw new IllegalStateException("No buffer read");
				}
				this.completed.add(SpooledPart.of(partHeaders, target, bufferFactory, this.settings.blockingScheduler()));
				this.spool = null;
			}
		}
		this.pieces = new ArrayList<>(1);
		this.headers = null;
	}

	/** Release and delete everything not handed out; read nothing more. */
	synchronized void dispose() {
		if (this.disposed) {
			return;
		}
		this.disposed = true;
		this.scanner.dispose();
		this.pieces.forEach(DataBufferUtils::release);
		this.pieces.clear();
		Write write;
		while ((write = this.writes.poll()) != null) {
			DataBuffer piece = write.piece();
			if (piece != null) {
				DataBufferUtils.release(piece);
			}
			write.spool().delete();
		}
		this.queuedBytes = 0;
		SpooledPart.Spool current = this.spool;
		if (current != null) {
			current.delete();
		}
		Part part;
		while ((part = this.completed.poll()) != null) {
			discard(part);
		}
	}

	/**
	 * Free a part that nobody will read: release its pieces or delete its file now.
	 * @param part the part
	 */
	static void discard(Part part) {
		if (part instanceof SlicedPart sliced) {
			sliced.release();
		}
		else if (part instanceof SpooledPart spooled) {
			spooled.deleteNow();
		}
		else {
			part.delete().subscribe();
		}
	}

}
