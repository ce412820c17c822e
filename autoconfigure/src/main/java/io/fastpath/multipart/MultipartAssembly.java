package io.fastpath.multipart;

import java.nio.charset.Charset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.http.ReactiveHttpInputMessage;

import io.fastpath.multipart.scan.MultipartScanner;

/**
 * What the readers of one multipart body share: its {@link MultipartScanner}, fed one
 * buffer at a time; what the scan completed and was not yet handed out; and, on error or
 * cancel, {@link #dispose()}, which releases all of that once and reads nothing more.
 * Subclasses say what a part becomes ({@link MultipartScanner.Parts}), what they hold
 * between buffers ({@link #releaseHeld()}) and how to free a completed item nobody will
 * read ({@link #discard(Object)}). Its methods lock the assembly: the body's buffers and
 * a cancel may arrive on different threads.
 *
 * @param <T> what a part becomes
 * @author Fastpath
 */
abstract class MultipartAssembly<T> implements MultipartScanner.Parts {

	private final MultipartScanner scanner;

	private final ArrayDeque<T> completed = new ArrayDeque<>(4);

	private boolean disposed;

	/**
	 * Assemble the parts of a body.
	 * @param delimiter the delimiter of its parts ({@link #delimiter})
	 * @param maxHeadersSize the limit of a part's headers
	 * @param headersCharset the charset of part headers
	 */
	MultipartAssembly(byte[] delimiter, int maxHeadersSize, Charset headersCharset) {
		this.scanner = new MultipartScanner(delimiter, maxHeadersSize, headersCharset, this);
	}

	/**
	 * The delimiter of the message's parts, {@code CRLF--boundary}, with the boundary of
	 * its {@code multipart} content type as Spring's {@code MultipartUtils.boundary} (not
	 * public) reads it: unquoted, in the headers' charset.
	 * @param message the message
	 * @param headersCharset the charset of part headers
	 * @return the delimiter, or {@code null} if the content type has no boundary
	 */
	static byte @Nullable [] delimiter(ReactiveHttpInputMessage message, Charset headersCharset) {
		MediaType contentType = message.getHeaders().getContentType();
		String boundary = (contentType != null) ? contentType.getParameter("boundary") : null;
		if (boundary == null) {
			return null;
		}
		int length = boundary.length();
		if (length > 2 && boundary.charAt(0) == '"' && boundary.charAt(length - 1) == '"') {
			return MultipartScanner.delimiter(boundary, 1, length - 1, headersCharset);
		}
		return MultipartScanner.delimiter(boundary, 0, length, headersCharset);
	}

	/**
	 * Return whether the given buffer is to be read: not once the closing boundary was
	 * read or the assembly disposed, when it is released. The reader stops the body at
	 * its closing boundary ({@link #isClosed()}); a buffer already on its way then is
	 * released here, {@code takeWhile} does not discard it.
	 * @param buffer the next buffer of the body
	 * @return whether to read it
	 */
	final synchronized boolean isReading(DataBuffer buffer) {
		if (this.scanner.isDone() || this.disposed) {
			DataBufferUtils.release(buffer);
			return false;
		}
		return true;
	}

	/**
	 * Return whether the closing boundary was read, and the assembly not disposed: the
	 * rest of the body is epilogue, and what was completed is all there is. The reader
	 * hands it out and cancels the body there, without waiting for the body's end: stock's
	 * {@code MultipartParser} cancels the body and completes at its closing boundary too,
	 * and a server may never end a body whose client left in its epilogue (Tomcat).
	 * @return whether the body is closed
	 */
	final synchronized boolean isClosed() {
		return this.scanner.isDone() && !this.disposed;
	}

	/**
	 * Scan the next buffer of the body; once disposed, release it.
	 * @param buffer the buffer, released here or handed on in what it completes
	 * @return why the body failed, or {@code null}
	 */
	final synchronized @Nullable RuntimeException scan(DataBuffer buffer) {
		if (this.disposed) {
			DataBufferUtils.release(buffer);
			return null;
		}
		try {
			this.scanner.feed(buffer);
			return null;
		}
		catch (RuntimeException ex) {
			return ex;
		}
	}

	/**
	 * The body ended.
	 * @return why, if it ended before the closing boundary; else {@code null}
	 */
	final synchronized @Nullable RuntimeException scanEnd() {
		if (this.disposed) {
			return null;
		}
		try {
			this.scanner.complete();
			return null;
		}
		catch (RuntimeException ex) {
			return ex;
		}
	}

	/**
	 * Keep a completed item until it is handed out.
	 * @param item the item
	 */
	final void complete(T item) {
		this.completed.add(item);
	}

	/** Whether the assembly was disposed; the caller holds its lock. */
	final boolean isDisposed() {
		return this.disposed;
	}

	final boolean hasCompleted() {
		return !this.completed.isEmpty();
	}

	/**
	 * Take what was completed and not yet handed out: none once disposed.
	 * @return the items, in order
	 */
	final synchronized List<T> takeCompleted() {
		int count = this.completed.size();
		if (this.disposed || count == 0) {
			return List.of();
		}
		// a body buffer mostly completes one item, if any: no list to copy it into
		if (count == 1) {
			return List.of(this.completed.remove());
		}
		List<T> items = new ArrayList<>(this.completed);
		this.completed.clear();
		return items;
	}

	/**
	 * Take the next item completed and not yet handed out, for a reader that takes them
	 * one at a time: none once disposed.
	 * @return the item, or {@code null}
	 */
	final synchronized @Nullable T pollCompleted() {
		return this.disposed ? null : this.completed.poll();
	}

	/** Release everything not handed out, once; read nothing more. */
	final synchronized void dispose() {
		if (this.disposed) {
			return;
		}
		this.disposed = true;
		this.scanner.dispose();
		releaseHeld();
		T item;
		while ((item = this.completed.poll()) != null) {
			discard(item);
		}
	}

	/** Release what the assembly holds of a part not yet complete. */
	abstract void releaseHeld();

	/**
	 * Free a completed item that nobody will read.
	 * @param item the item
	 */
	abstract void discard(T item);

}
