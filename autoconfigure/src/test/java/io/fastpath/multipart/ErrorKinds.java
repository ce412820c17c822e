package io.fastpath.multipart;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.ContentDisposition;
import org.springframework.http.InvalidMediaTypeException;

/**
 * What kind of error a multipart reader failed with, as the differential tests compare
 * them: a malformed body, one too large, a part header that cannot be parsed (with the
 * parser's error, so that which header failed first is compared too), or else the error
 * itself. Stock's and Fastpath's are compared as kinds, not classes, because of a
 * deliberate departure: a part header that cannot be parsed fails Spring's reader with
 * the parser's {@code IllegalArgumentException} (a 500 on a server), Fastpath's with a
 * {@link DecodingException} (a malformed body, 400) caused by the same error.
 */
final class ErrorKinds {

	private static final String UNPARSEABLE = "A part header cannot be parsed: ";

	private ErrorKinds() {
	}

	/**
	 * The kind of an error of Fastpath's reader.
	 * @param error the error, or {@code null} if none
	 * @return the kind: "malformed", "too large", "malformed part header" and the
	 * parser's error, or the error as text
	 */
	static String of(@Nullable Throwable error) {
		if (error instanceof DecodingException) {
			String message = error.getMessage();
			return (message != null && message.startsWith(UNPARSEABLE))
					? "malformed part header: " + error.getCause() : "malformed";
		}
		if (error instanceof DataBufferLimitException) {
			return "too large";
		}
		return String.valueOf(error);
	}

	/**
	 * The kind of an error of Spring's reader, as Fastpath's must fail alike: a part
	 * header Spring's parser rejects ({@code InvalidMediaTypeException} for the type, an
	 * {@code IllegalArgumentException} raised in {@link ContentDisposition} for the
	 * disposition) is a malformed part header with that error; any other error is taken
	 * as {@link #of} takes it.
	 * @param error the error, or {@code null} if none
	 * @return the kind Fastpath's error must have
	 */
	static String ofStock(@Nullable Throwable error) {
		return isUnparseablePartHeader(error) ? "malformed part header: " + error : of(error);
	}

	/**
	 * Whether the error is stock's for a part header that cannot be parsed.
	 * @param error the error, or {@code null} if none
	 * @return whether the parser of the type or the disposition raised it
	 */
	static boolean isUnparseablePartHeader(@Nullable Throwable error) {
		return error instanceof InvalidMediaTypeException || (error instanceof IllegalArgumentException
				&& Arrays.stream(error.getStackTrace())
					.anyMatch((frame) -> frame.getClassName().equals(ContentDisposition.class.getName())));
	}

}
