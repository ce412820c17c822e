package io.fastpath.multipart;

import org.springframework.core.codec.DecodingException;

/**
 * A multipart form of more parts than the part reader's limit
 * ({@code spring.webflux.multipart.max-parts}), as Fastpath's part reader reports it: a
 * {@link DecodingException} with Spring's own message, as stock's reader raises it, and a
 * type of its own, which {@link MultipartReaders#translateError} answers with 413.
 *
 * @author Fastpath
 */
final class TooManyPartsException extends DecodingException {

	private static final long serialVersionUID = 1L;

	TooManyPartsException(int count, int maxParts) {
		super("Too many parts (" + count + "/" + maxParts + " allowed)");
	}

}
