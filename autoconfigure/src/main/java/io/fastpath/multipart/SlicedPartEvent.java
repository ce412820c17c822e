package io.fastpath.multipart;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.multipart.FilePartEvent;
import org.springframework.http.codec.multipart.FormPartEvent;
import org.springframework.http.codec.multipart.PartEvent;

/**
 * A {@link PartEvent} of content: a piece of a request buffer, the receiver's to release,
 * as Spring's are. Spring's own event types are package-private, so these are their
 * twins: a part with a filename gives {@link FilePartEvent}s, a form field one
 * {@link Form} event, any other part plain ones.
 *
 * @author Fastpath
 */
class SlicedPartEvent implements PartEvent {

	/**
	 * The content of an empty part: shared, as stock's, and releasing it does nothing.
	 */
	private static final DataBuffer EMPTY = DefaultDataBufferFactory.sharedInstance.allocateBuffer(0);

	private final HttpHeaders headers;

	private final DataBuffer content;

	private final boolean last;

	SlicedPartEvent(HttpHeaders headers, DataBuffer content, boolean last) {
		this.headers = headers;
		this.content = content;
		this.last = last;
	}

	/**
	 * Create the event of some content of a part.
	 * @param headers the part's read-only headers
	 * @param file whether the part has a filename
	 * @param content the piece, handed on to the receiver
	 * @param last whether the part ends with it
	 * @return a {@link FilePartEvent} for a file, else a plain event
	 */
	static SlicedPartEvent of(HttpHeaders headers, boolean file, DataBuffer content, boolean last) {
		return file ? new File(headers, content, last) : new SlicedPartEvent(headers, content, last);
	}

	/**
	 * Create the one event of an empty part.
	 * @param headers the part's read-only headers
	 * @param file whether the part has a filename
	 * @return its last event, without content
	 */
	static SlicedPartEvent empty(HttpHeaders headers, boolean file) {
		return of(headers, file, EMPTY, true);
	}

	@Override
	public HttpHeaders headers() {
		return this.headers;
	}

	@Override
	public DataBuffer content() {
		return this.content;
	}

	@Override
	public boolean isLast() {
		return this.last;
	}

	/** The content of a part with a filename. */
	static final class File extends SlicedPartEvent implements FilePartEvent {

		File(HttpHeaders headers, DataBuffer content, boolean last) {
			super(headers, content, last);
		}

	}

	/** A form field, whole: its value decoded with the charset of its content type. */
	static final class Form implements FormPartEvent {

		private final HttpHeaders headers;

		private final String value;

		Form(HttpHeaders headers, String value) {
			this.headers = headers;
			this.value = value;
		}

		@Override
		public HttpHeaders headers() {
			return this.headers;
		}

		@Override
		public String value() {
			return this.value;
		}

		/** A new buffer on every call, as stock's: nothing to release. */
		@Override
		public DataBuffer content() {
			return DefaultDataBufferFactory.sharedInstance.wrap(this.value.getBytes(charset(this.headers)));
		}

		@Override
		public boolean isLast() {
			return true;
		}

		/** Spring's {@code MultipartUtils.charset}: the content type's, else UTF-8. */
		static Charset charset(HttpHeaders headers) {
			MediaType contentType = headers.getContentType();
			Charset charset = (contentType != null) ? contentType.getCharset() : null;
			return (charset != null) ? charset : StandardCharsets.UTF_8;
		}

	}

}
