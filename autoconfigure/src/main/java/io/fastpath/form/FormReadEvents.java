package io.fastpath.form;

import org.jspecify.annotations.Nullable;

import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;

import org.springframework.core.io.buffer.DataBufferLimitException;

/**
 * How {@link LazyFormHttpMessageReader} names the forms it refuses, as {@link ReadEvent}s.
 *
 * @author Fastpath
 */
final class FormReadEvents {

	private FormReadEvents() {
	}

	/**
	 * Tell the listener of a form refused with the given error; errors that are not the
	 * body's (a failing upstream, for one) are not rejections and are not told.
	 */
	static void rejected(ReadListener listener, Throwable error) {
		ReadEvent rejection = rejection(error);
		if (rejection != null) {
			listener.onRead(rejection);
		}
	}

	private static @Nullable ReadEvent rejection(Throwable error) {
		if (error instanceof DataBufferLimitException) {
			return ReadEvent.FORM_TOO_LARGE;
		}
		if (error instanceof TooManyFormFieldsException) {
			return ReadEvent.FORM_TOO_MANY_FIELDS;
		}
		if (error instanceof MalformedFormDataException) {
			return ReadEvent.FORM_MALFORMED;
		}
		return null;
	}

}
