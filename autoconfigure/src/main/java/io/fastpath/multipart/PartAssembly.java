package io.fastpath.multipart;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.http.codec.multipart.Part;

import io.fastpath.multipart.scan.BufferBytes;
import io.fastpath.multipart.scan.MultipartScanner;
import io.fastpath.multipart.scan.PartHeaders;

/**
 * The parts of one multipart body as {@link MultipartScanner} finds them, with Spring's
 * limits and its choice of part: a text field (no filename, no type or
 * {@code text/plain}) is kept as its pieces up to the in-memory limit and fails above it;
 * any other part is kept as its pieces up to that limit and goes to a temporary file
 * above it, up to the disk limit. A part that ends in memory is copied out of its pieces
 * ({@link MemoryPart}), which are released then: no part handed out holds a request
 * buffer.
 * <p>File writes are queued in order and written by one task at a time on the blocking
 * scheduler while the body goes on being read: the disk and the network work side by side.
 * A task starts once {@value #WRITE_BATCH} bytes are queued (one thread hop per batch, not
 * per body buffer of about 8 KB) and takes everything queued at once, a file's consecutive
 * pieces in one gathering write. Reading stops while more than {@value #MAX_UNWRITTEN}
 * bytes are queued or being written, and resumes at half that: a slow disk holds the
 * sender back through TCP, and the server holds at most that much of the request's
 * buffers beyond Netty's. A part is handed out, and the body ends, only once its file
 * is written and closed: the body does not wait for each batch's two thread hops and
 * its write.
 * {@link #dispose()} releases and deletes all that was not handed out.
 *
 * @author Fastpath
 */
final class PartAssembly extends MultipartAssembly<Part> {

	private enum Kind {

		FIELD, MEMORY, FILE

	}

	/** A piece to write to a spool, or, without one, the spool to close. */
	private record Write(SpooledPart.Spool spool, @Nullable DataBuffer piece) {
	}

	private final MultipartSettings settings;

	private final Consumer<PartHeaders> handOutCheck;

	/** The request's files, deleted when its handling ends, if a filter keeps them. */
	private final Disposable.@Nullable Composite files;

	private @Nullable DataBufferFactory factory;

	private int count;

	private @Nullable PartHeaders headers;

	private Kind kind = Kind.FIELD;

	private final List<DataBuffer> pieces = new ArrayList<>(1);

	/**
	 * The buffer the content of the part is in while it is in one Netty buffer, retained
	 * in place; {@code null} once it is {@link #pieces} (a part that arrives in one buffer,
	 * as the fields of a small form, takes no view of it until it ends, see {@link MemoryPart}).
	 */
	private @Nullable DataBuffer viewed;

	private int viewIndex;

	private int viewLength;

	private long size;

	private SpooledPart.@Nullable Spool spool;

	/** Bytes queued from which a write task starts, before the part or the body ends. */
	static final int WRITE_BATCH = 64 * 1024;

	/** Bytes queued or being written past which no more of the body is read. */
	static final int MAX_UNWRITTEN = 1024 * 1024;

	/** Small until a part goes to a file: a form of text fields writes nothing. */
	private final ArrayDeque<Write> writes = new ArrayDeque<>(1);

	/** Bytes of the pieces in {@link #writes} and of those being written. */
	private long queuedBytes;

	/** Where the files go, once the stock storage has given its directory. */
	private @Nullable Path directory;

	/** Whether a write task is scheduled or running: it stops once nothing is queued. */
	private boolean writing;

	/** Why writing failed: the body fails with it. */
	private @Nullable Throwable writeError;

	/** The reading of the body waiting on the writes, and for all of them or for room. */
	private @Nullable MonoSink<Void> waiting;

	private boolean waitingForAll;

	PartAssembly(byte[] delimiter, MultipartSettings settings, Disposable.@Nullable Composite files) {
		this(delimiter, settings, files, (headers) -> {
		});
	}

	/**
	 * Assemble the parts of a body for a reader that checks each part it takes.
	 * @param delimiter the delimiter of its parts ({@link MultipartAssembly#delimiter})
	 * @param settings the settings of the part reader
	 * @param files where the request keeps its files for deletion when its handling
	 * ends, or {@code null}
	 * @param handOutCheck what the reader asks of each part as stock's reader asks it when
	 * the part is emitted (its count against a limit, its name), run as the part
	 * completes, before the scan reads on: what it throws fails the body there, as stock
	 * fails before it parses further, and not at a fault further in the same buffer
	 */
	PartAssembly(byte[] delimiter, MultipartSettings settings, Disposable.@Nullable Composite files,
			Consumer<PartHeaders> handOutCheck) {
		super(delimiter, settings.maxHeadersSize(), settings.headersCharset());
		this.settings = settings;
		this.files = files;
		this.handOutCheck = handOutCheck;
	}

	/**
	 * Read the next buffer of the body.
	 * @param buffer the buffer, released here
	 * @return the parts it completed, once their files are written; or the error
	 */
	synchronized Flux<Part> feed(DataBuffer buffer) {
		Mono<Void> ready;
		try {
			ready = scanNext(buffer);
		}
		catch (RuntimeException ex) {
			return Flux.error(ex);
		}
		return handOut(ready);
	}

	/**
	 * The body ended.
	 * @return the parts still to hand out, or the error of a body not closed
	 */
	synchronized Flux<Part> finish() {
		Mono<Void> ready;
		try {
			ready = scanLast();
		}
		catch (RuntimeException ex) {
			return Flux.error(ex);
		}
		return handOut(ready);
	}

	private Flux<Part> handOut(@Nullable Mono<Void> ready) {
		// taken when subscribed, once their files are written: until then dispose() frees them
		Flux<Part> parts = hasCompleted() ? Flux.defer(() -> Flux.fromIterable(takeCompleted())) : Flux.empty();
		return (ready != null) ? ready.thenMany(parts) : parts;
	}

	/**
	 * Scan the next buffer of the body, for a reader that takes the parts itself
	 * ({@link #pollCompleted()}) once they may be handed out.
	 * @param buffer the buffer, released here
	 * @return {@code null} if the parts it completed may be handed out now, else when
	 * they may: once their files are written (every file, at the closing boundary), or
	 * once the writes queued leave room to read on; it fails if a write failed
	 * @throws RuntimeException if the body is malformed or over a limit
	 */
	synchronized @Nullable Mono<Void> scanNext(DataBuffer buffer) {
		if (this.factory == null) {
			this.factory = buffer.factory();
		}
		RuntimeException failed = scan(buffer);
		if (failed != null) {
			throw failed;
		}
		// the closing boundary: the parts are handed out now, not at the end of the body
		return readiness(isClosed());
	}

	/**
	 * The body ended, for a reader that takes the parts itself.
	 * @return {@code null} if the last parts may be handed out now, else when they may
	 * (every file written), as {@link #scanNext(DataBuffer)}
	 * @throws RuntimeException if the body ended before its closing boundary
	 */
	synchronized @Nullable Mono<Void> scanLast() {
		RuntimeException failed = scanEnd();
		if (failed != null) {
			throw failed;
		}
		return readiness(true);
	}

	private @Nullable Mono<Void> readiness(boolean end) {
		Throwable failed = this.writeError;
		if (failed != null) {
			return Mono.error(failed);
		}
		boolean all = end || hasCompleted();
		if (all || this.queuedBytes >= WRITE_BATCH) {
			startWriting();
			// a blocking scheduler that runs the write in place has already failed it
			failed = this.writeError;
			if (failed != null) {
				return Mono.error(failed);
			}
		}
		if (all ? allWritten() : this.queuedBytes <= MAX_UNWRITTEN) {
			return null;
		}
		return Mono.create((sink) -> await(sink, all));
	}

	private boolean allWritten() {
		return this.writes.isEmpty() && !this.writing;
	}

	private void startWriting() {
		if (this.writing || this.writes.isEmpty()) {
			return;
		}
		this.writing = true;
		if (this.directory != null) {
			this.settings.blockingScheduler().schedule(this::write);
			return;
		}
		// stock's temporary directory is created on first use, on the blocking scheduler
		this.settings.fileStorageDirectory().subscribe((created) -> {
			synchronized (this) {
				this.directory = created;
			}
			this.settings.blockingScheduler().schedule(this::write);
		}, this::writingFailed);
	}

	/** The write task: everything queued, then again, until nothing is. */
	private void write() {
		for (;;) {
			List<Write> batch = List.of();
			Path target;
			synchronized (this) {
				target = this.directory;
				if (isDisposed() || this.writes.isEmpty() || target == null) {
					this.writing = false;
				}
				else {
					batch = new ArrayList<>(this.writes);
					this.writes.clear();
				}
			}
			if (target == null || batch.isEmpty()) {
				wakeOutside();
				return;
			}
			long written = 0;
			try {
				written = writeAll(batch, target);
			}
			catch (RuntimeException ex) {
				writingFailed(ex);
				return;
			}
			synchronized (this) {
				this.queuedBytes -= written;
			}
			wakeOutside();
		}
	}

	/**
	 * Write the batch in order, a file's consecutive pieces in one go, every piece released
	 * once, written or not; return the bytes.
	 */
	private static long writeAll(List<Write> batch, Path directory) {
		long written = 0;
		List<DataBuffer> pieces = new ArrayList<>();
		for (int i = 0; i < batch.size(); i++) {
			Write write = batch.get(i);
			DataBuffer piece = write.piece();
			try {
				if (piece == null) {
					write.spool().close();
					continue;
				}
				written += piece.readableByteCount();
				pieces.add(piece);
				boolean more = i + 1 < batch.size() && batch.get(i + 1).spool() == write.spool()
						&& batch.get(i + 1).piece() != null;
				if (!more) {
					List<DataBuffer> run = pieces;
					pieces = new ArrayList<>();
					write.spool().write(run, directory);
				}
			}
			catch (RuntimeException ex) {
				pieces.forEach(DataBufferUtils::release);
				for (int rest = i + 1; rest < batch.size(); rest++) {
					DataBuffer unwritten = batch.get(rest).piece();
					if (unwritten != null) {
						DataBufferUtils.release(unwritten);
					}
				}
				throw ex;
			}
		}
		return written;
	}

	private void writingFailed(Throwable ex) {
		synchronized (this) {
			this.writing = false;
			if (this.writeError == null) {
				this.writeError = ex;
			}
		}
		wakeOutside();
	}

	private void await(MonoSink<Void> sink, boolean all) {
		synchronized (this) {
			this.waiting = sink;
			this.waitingForAll = all;
		}
		sink.onCancel(() -> {
			synchronized (this) {
				if (this.waiting == sink) {
					this.waiting = null;
				}
			}
		});
		// the writes may have got there between readiness and now
		wakeOutside();
	}

	/**
	 * Let the reading of the body go on if the writes got where it waits for, or fail it.
	 * Not under the lock: the parts it hands out run the application's code on this thread.
	 */
	private void wakeOutside() {
		MonoSink<Void> sink;
		Throwable failed;
		synchronized (this) {
			sink = this.waiting;
			failed = this.writeError;
			if (sink == null || (failed == null
					&& !(this.waitingForAll ? allWritten() : this.queuedBytes <= MAX_UNWRITTEN / 2))) {
				return;
			}
			this.waiting = null;
		}
		if (failed != null) {
			sink.error(failed);
		}
		else {
			sink.success();
		}
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

	/** Spring's {@code MultipartUtils.isFormField}, on headers not yet built. */
	static boolean isFormField(PartHeaders headers) {
		MediaType contentType = headers.contentType();
		return (contentType == null || MediaType.TEXT_PLAIN.equalsTypeAndSubtype(contentType))
				&& headers.filename() == null;
	}

	@Override
	public void content(DataBuffer buffer, int index, int length) {
		if (this.kind != Kind.FILE && this.viewed == null && this.pieces.isEmpty() && staysInMemory(this.size + length)
				&& BufferBytes.retainInPlace(buffer)) {
			this.size += length;
			this.viewed = buffer;
			this.viewIndex = index;
			this.viewLength = length;
			return;
		}
		content(MultipartScanner.Parts.view(buffer, index, length));
	}

	/** Whether a part of the given size stays in memory, as {@link #content(DataBuffer)} has it. */
	private boolean staysInMemory(long size) {
		int maxInMemory = this.settings.maxInMemorySize();
		return maxInMemory == -1 || ((this.kind == Kind.FIELD) ? size < maxInMemory : size <= maxInMemory);
	}

	@Override
	public void content(DataBuffer piece) {
		unview();
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
					if (this.files != null) {
						this.files.add(target);
					}
					this.spool = target;
					this.kind = Kind.FILE;
					for (DataBuffer held : this.pieces) {
						queue(target, held);
					}
					this.pieces.clear();
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

	/** Make the bytes of the buffer the part is in, if it is, its first piece. */
	private void unview() {
		DataBuffer buffer = this.viewed;
		if (buffer != null) {
			this.viewed = null;
			try {
				this.pieces.add(MultipartScanner.Parts.view(buffer, this.viewIndex, this.viewLength));
			}
			finally {
				DataBufferUtils.release(buffer);
			}
		}
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
				this.handOutCheck.accept(partHeaders);
				complete(inMemory(partHeaders, true, false));
			}
			case MEMORY -> {
				// read before the pieces leave the assembly, which releases them if it is malformed
				boolean file = partHeaders.filename() != null;
				this.handOutCheck.accept(partHeaders);
				complete(inMemory(partHeaders, false, file));
			}
			case FILE -> {
				SpooledPart.Spool target = currentSpool();
				this.writes.add(new Write(target, null));
				DataBufferFactory bufferFactory = this.factory;
				if (bufferFactory == null) {
					throw new IllegalStateException("No buffer read");
				}
				SpooledPart part = SpooledPart.of(partHeaders, target, bufferFactory, this.settings.blockingScheduler());
				this.handOutCheck.accept(partHeaders);
				complete(part);
				this.spool = null;
			}
		}
		this.headers = null;
	}

	/** Hand over the buffer the part that ends is in, if it is in one. */
	private @Nullable DataBuffer takeViewed() {
		DataBuffer buffer = this.viewed;
		this.viewed = null;
		return buffer;
	}

	/**
	 * The part that ends in memory, copied out of the buffer it is in or its pieces,
	 * which the part releases as it copies them, failing or not: the list that collects
	 * them is emptied for the next part, and so holds none for {@link #releaseHeld()}.
	 */
	private MemoryPart inMemory(PartHeaders headers, boolean field, boolean file) {
		DataBuffer buffer = takeViewed();
		if (buffer != null) {
			return field ? MemoryPart.field(headers, buffer, this.viewIndex, this.viewLength)
					: MemoryPart.of(headers, file, buffer, this.viewIndex, this.viewLength);
		}
		List<DataBuffer> held = this.pieces;
		try {
			return field ? MemoryPart.field(headers, held) : MemoryPart.of(headers, file, held);
		}
		finally {
			held.clear();
		}
	}

	/** Release the pieces held and the queued writes, and delete the files. */
	@Override
	void releaseHeld() {
		DataBuffer buffer = takeViewed();
		if (buffer != null) {
			DataBufferUtils.release(buffer);
		}
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
	}

	@Override
	void discard(Part part) {
		free(part);
	}

	/**
	 * Free a part that nobody will read: delete its file now. A part in memory holds
	 * nothing to free.
	 * @param part the part
	 */
	static void free(Part part) {
		if (part instanceof MemoryPart) {
			return;
		}
		if (part instanceof SpooledPart spooled) {
			spooled.deleteNow();
		}
		else {
			part.delete().subscribe();
		}
	}

}
