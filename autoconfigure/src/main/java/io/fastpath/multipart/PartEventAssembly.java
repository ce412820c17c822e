package io.fastpath.multipart;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.codec.multipart.PartEvent;

import io.fastpath.multipart.scan.MultipartScanner;
import io.fastpath.multipart.scan.PartHeaders;

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
final class PartEventAssembly extends MultipartAssembly<PartEvent> {

	private final PartEventSettings settings;

	private int count;

	private @Nullable PartHeaders partHeaders;

	private @Nullable HttpHeaders headers;

	private boolean field;

	/** The pieces of a form field, joined when it ends. */
	private List<DataBuffer> pieces = new ArrayList<>(1);

	/** The latest piece of another part, handed on once it is known whether it is its last. */
	private @Nullable DataBuffer held;

	private long size;

	PartEventAssembly(byte[] delimiter, PartEventSettings settings) {
		super(delimiter, settings.maxHeadersSize(), settings.headersCharset());
		this.settings = settings;
	}

	/**
	 * Read the next buffer of the body.
	 * @param buffer the buffer, released here or handed on in events
	 * @return the events it completed
	 * @throws RuntimeException why the body failed
	 */
	synchronized List<PartEvent> feed(DataBuffer buffer) {
		RuntimeException failed = scan(buffer);
		if (failed != null) {
			throw failed;
		}
		return takeCompleted();
	}

	/**
	 * The body ended.
	 * @return the events still to hand out
	 * @throws RuntimeException why, if it ended before the closing boundary
	 */
	synchronized List<PartEvent> finish() {
		RuntimeException failed = scanEnd();
		if (failed != null) {
			throw failed;
		}
		return takeCompleted();
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
		this.partHeaders = partHeaders;
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
			boolean file;
			try {
				file = isFile();
			}
			catch (RuntimeException ex) {
				// the piece is held, and released with the rest; this one is in no event
				DataBufferUtils.release(previous);
				throw ex;
			}
			complete(SlicedPartEvent.of(currentHeaders(), file, previous, false));
		}
	}

	@Override
	public void end() {
		HttpHeaders partHeaders = currentHeaders();
		if (this.field) {
			List<DataBuffer> value = this.pieces;
			this.pieces = new ArrayList<>(1);
			complete(new SlicedPartEvent.Form(partHeaders, decode(value, partHeaders)));
		}
		else {
			// before the last piece is taken: if the disposition is malformed, it stays held
			// and is released with the rest
			boolean file = isFile();
			DataBuffer last = this.held;
			this.held = null;
			complete((last != null) ? SlicedPartEvent.of(partHeaders, file, last, true)
					: SlicedPartEvent.empty(partHeaders, file));
		}
		this.headers = null;
		this.partHeaders = null;
	}

	/**
	 * Whether the current part has a filename: its disposition is parsed when its first
	 * event is made, as stock parses it then, and once ({@link PartHeaders} keeps it),
	 * where stock parses it again for every event.
	 */
	private boolean isFile() {
		PartHeaders current = this.partHeaders;
		if (current == null) {
			throw new IllegalStateException("No part");
		}
		return current.filename() != null;
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

	/** Release the pieces of a field and the last piece of a part not yet handed out. */
	@Override
	void releaseHeld() {
		this.pieces.forEach(DataBufferUtils::release);
		this.pieces.clear();
		DataBuffer last = this.held;
		this.held = null;
		if (last != null) {
			DataBufferUtils.release(last);
		}
	}

	@Override
	void discard(PartEvent event) {
		free(event);
	}

	/**
	 * Release the content of an event that nobody will read.
	 * @param event the event
	 */
	static void free(PartEvent event) {
		if (event instanceof SlicedPartEvent sliced) {
			DataBufferUtils.release(sliced.content());
		}
	}

}
