package io.fastpath.form;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.codec.multipart.PartEvent;

/**
 * The {@link PartEvent}s of one multipart body as {@link MultipartScanner} finds its
 * parts, with Spring's {@code PartEventHttpMessageReader}'s limits: a form field (no
 * filename, no type or {@code text/plain}) is one event, its value joined and decoded
 * once it ends, and fails over the smaller of the in-memory and part limits; any other
 * part is an event per piece of the request buffers it arrived in, in order, up to the
 * part limit. The last piece of a part is held until the next piece or the part's end
 * shows whether it is the last: one piece, never a copy. A part without content is one
 * event without content.
 * {@link #dispose()} releases all that was not handed out.
 *
 * @author Fastpath
 */
final class PartEventAssembly implements MultipartScanner.Parts {

	private final PartEventSettings settings;

	private final MultipartScanner scanner;

	private int count;

	private @Nullable HttpHeaders headers;

	private boolean field;

	/** The pieces of a form field, joined when it ends. */
	private List<DataBuffer> pieces = new ArrayList<>(1);

	/** The latest piece of another part, handed on once it is known whether it is its last. */
	private @Nullable DataBuffer held;

	private long size;

	private final ArrayDeque<PartEvent> completed = new ArrayDeque<>();

	private boolean disposed;

	PartEventAssembly(byte[] boundary, PartEventSettings settings) {
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
	 * @param buffer the buffer, released here or handed on in events
	 * @return the events it completed, or the error
	 */
	synchronized Flux<PartEvent> feed(DataBuffer buffer) {
		if (this.disposed) {
			DataBufferUtils.release(buffer);
			return Flux.empty();
		}
		try {
			this.scanner.feed(buffer);
		}
		catch (RuntimeException ex) {
			return Flux.error(ex);
		}
		return handOut();
	}

	/**
	 * The body ended.
	 * @return the events still to hand out, or the error of a body not closed
	 */
	synchronized Flux<PartEvent> finish() {
		if (this.disposed) {
			return Flux.empty();
		}
		try {
			this.scanner.complete();
		}
		catch (RuntimeException ex) {
			return Flux.error(ex);
		}
		return handOut();
	}

	/** Taken when subscribed: until then, {@link #dispose()} releases them. */
	private Flux<PartEvent> handOut() {
		return Flux.defer(() -> Flux.fromIterable(takeCompleted()));
	}

	private synchronized List<PartEvent> takeCompleted() {
		if (this.disposed || this.completed.isEmpty()) {
			return List.of();
		}
		List<PartEvent> events = new ArrayList<>(this.completed);
		this.completed.clear();
		return events;
	}

	@Override
	public void headers(PartHeaders partHeaders) {
		this.count++;
		int maxParts = this.settings.maxParts();
		if (maxParts > 0 && this.count > maxParts) {
			throw new TooManyPartsException(this.count, maxParts);
		}
		// read-only as stock's, and built once for all the events of the part
		this.headers = HttpHeaders.readOnlyHttpHeaders(partHeaders.headers());
		this.field = PartAssembly.isFormField(partHeaders);
		this.size = 0;
	}

	@Override
	public void content(DataBuffer piece) {
		this.size += piece.readableByteCount();
		if (this.field) {
			int maxFieldSize = this.settings.maxFieldSize();
			if (maxFieldSize != -1 && this.size > maxFieldSize) {
				DataBufferUtils.release(piece);
				// stock's, from DataBufferUtils.join
				throw new DataBufferLimitException("Exceeded limit on max bytes to buffer : " + maxFieldSize);
			}
			this.pieces.add(piece);
			return;
		}
		long maxPartSize = this.settings.maxPartSize();
		if (maxPartSize != -1 && this.size > maxPartSize) {
			DataBufferUtils.release(piece);
			throw new DataBufferLimitException("Part exceeded the limit of " + maxPartSize + " bytes");
		}
		DataBuffer previous = this.held;
		this.held = piece;
		if (previous != null) {
			this.completed.add(SlicedPartEvent.of(currentHeaders(), previous, false));
		}
	}

	@Override
	public void end() {
		HttpHeaders partHeaders = currentHeaders();
		if (this.field) {
			List<DataBuffer> value = this.pieces;
			this.pieces = new ArrayList<>(1);
			this.completed.add(new SlicedPartEvent.Form(partHeaders, decode(value, partHeaders)));
		}
		else {
			DataBuffer last = this.held;
			this.held = null;
			this.completed.add((last != null) ? SlicedPartEvent.of(partHeaders, last, true)
					: SlicedPartEvent.empty(partHeaders));
		}
		this.headers = null;
	}

	/** The value of a form field, its pieces released. */
	private static String decode(List<DataBuffer> value, HttpHeaders headers) {
		int length = 0;
		for (DataBuffer piece : value) {
			length += piece.readableByteCount();
		}
		byte[] bytes = new byte[length];
		int at = 0;
		for (DataBuffer piece : value) {
			int readable = piece.readableByteCount();
			piece.read(bytes, at, readable);
			at += readable;
			DataBufferUtils.release(piece);
		}
		return new String(bytes, SlicedPartEvent.Form.charset(headers));
	}

	private HttpHeaders currentHeaders() {
		HttpHeaders current = this.headers;
		if (current == null) {
			throw new IllegalStateException("No part");
		}
		return current;
	}

	/** Release everything not handed out; read nothing more. */
	synchronized void dispose() {
		if (this.disposed) {
			return;
		}
		this.disposed = true;
		this.scanner.dispose();
		this.pieces.forEach(DataBufferUtils::release);
		this.pieces.clear();
		DataBuffer last = this.held;
		this.held = null;
		if (last != null) {
			DataBufferUtils.release(last);
		}
		PartEvent event;
		while ((event = this.completed.poll()) != null) {
			discard(event);
		}
	}

	/**
	 * Release the content of an event that nobody will read.
	 * @param event the event
	 */
	static void discard(PartEvent event) {
		if (event instanceof SlicedPartEvent sliced) {
			DataBufferUtils.release(sliced.content());
		}
	}

}
