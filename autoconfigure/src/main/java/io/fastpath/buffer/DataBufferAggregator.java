package io.fastpath.buffer;

import java.util.List;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.util.Assert;

/**
 * Joins a body of {@link DataBuffer}s into one buffer, like
 * {@link DataBufferUtils#join(Publisher, int)}, but without paying for the general case
 * when it does not happen.
 * <ul>
 * <li>A body of one buffer (the usual case) is emitted as it is: no list, no copy, no
 * composite buffer.</li>
 * <li>A body of several heap buffers is copied into one contiguous buffer of their
 * factory that grows with what has arrived (to at most twice it) up to the expected length
 * when the caller knows it: a sender announcing a length it does not send makes us hold no
 * more than about twice what it sent. Stock copies every buffer twice.
 * A body of several Netty buffers is gathered into a composite buffer without copying,
 * as stock does but without the intermediate list; one that trickles in as many small
 * pieces is moved into one contiguous buffer instead.</li>
 * <li>The byte limit is checked as early as possible: an expected length above it fails
 * before the body is read, and the running count fails on the buffer that crosses it,
 * with the stock {@link DataBufferLimitException}.</li>
 * <li>Every buffer received is released on error, on cancel and on the limit; an empty
 * body gives an empty {@code Mono}, as stock does.</li>
 * <li>A {@code Mono} is at most one buffer, already held: it is passed on as it is, as
 * stock passes it, the limit unchecked (only an expected length above it fails).</li>
 * </ul>
 *
 * @author Fastpath
 */
public final class DataBufferAggregator {

	/** Expected length to pass when the caller does not know it. */
	public static final long UNKNOWN_LENGTH = -1;

	private static final Runnable NOTHING = () -> {
	};

	private DataBufferAggregator() {
	}

	/**
	 * Join the given buffers into one.
	 * @param buffers the body
	 * @param maxByteCount the most bytes to hold, or -1 for no limit
	 * @param expectedLength the body length announced by the sender (for example the
	 * {@code Content-Length} header) of a body that follows it, or a negative value when
	 * unknown; one above the limit fails before the body is read, otherwise it only caps
	 * the joined buffer's growth, and the body may still differ from it
	 * @return the body in one buffer, or an empty {@code Mono} for an empty body
	 */
	public static Mono<DataBuffer> aggregate(Publisher<? extends DataBuffer> buffers, int maxByteCount,
			long expectedLength) {
		return aggregate(buffers, maxByteCount, expectedLength, NOTHING);
	}

	/**
	 * Join the given buffers into one, as {@link #aggregate(Publisher, int, long)}, and
	 * run the given callback when the body is refused for its size.
	 * @param buffers the body
	 * @param maxByteCount the most bytes to hold, or -1 for no limit
	 * @param expectedLength the body length announced by the sender, or a negative value
	 * when unknown
	 * @param limitExceeded run once, before the error is signalled, when the expected
	 * length or the body exceeds the limit; it must not throw
	 * @return the body in one buffer, or an empty {@code Mono} for an empty body
	 */
	@SuppressWarnings("unchecked")
	public static Mono<DataBuffer> aggregate(Publisher<? extends DataBuffer> buffers, int maxByteCount,
			long expectedLength, Runnable limitExceeded) {
		Assert.notNull(buffers, "'buffers' must not be null");
		Assert.notNull(limitExceeded, "'limitExceeded' must not be null");
		if (maxByteCount >= 0 && expectedLength > maxByteCount) {
			// Nothing was read, so nothing is held: failing here costs the sender no upload.
			limitExceeded.run();
			return Mono.error(limitExceeded(maxByteCount));
		}
		return aggregateResponseBody(buffers, maxByteCount, expectedLength, limitExceeded);
	}

	/**
	 * Gather the given buffers into a list, without joining them, for a reader that reads
	 * a body piece by piece (a parser that can be fed one buffer after another).
	 * @param buffers the body
	 * @param maxByteCount the most bytes to hold, or -1 for no limit
	 * @param limitExceeded run once, before the error is signalled, when the body exceeds
	 * the limit; it must not throw
	 * @return the body's buffers, possibly none, which the subscriber then owns and must
	 * release; on error, limit and cancel every buffer taken from the body is released
	 */
	public static Mono<List<DataBuffer>> collect(Publisher<? extends DataBuffer> buffers, int maxByteCount,
			Runnable limitExceeded) {
		Assert.notNull(buffers, "'buffers' must not be null");
		Assert.notNull(limitExceeded, "'limitExceeded' must not be null");
		return new BodyPartsMono(buffers, maxByteCount, limitExceeded);
	}

	/**
	 * Join a response body, whose declared length may describe a body that is not sent:
	 * that of a response to {@code HEAD}, of a 204 or of a 304 (RFC 9110, section 8.6).
	 * A declared length above the limit fails when the first byte arrives, not before:
	 * no byte comes for such a response, and stock answers it with an empty body.
	 */
	@SuppressWarnings("unchecked")
	static Mono<DataBuffer> aggregateResponseBody(Publisher<? extends DataBuffer> buffers, int maxByteCount,
			long expectedLength, Runnable limitExceeded) {
		if (buffers instanceof Mono<?> mono) {
			// At most one buffer by contract, and already held: DataBufferUtils.join passes it
			// on unchecked, and so do we.
			return (Mono<DataBuffer>) mono;
		}
		return new AggregatingMono(buffers, maxByteCount, expectedLength, limitExceeded);
	}

	static DataBufferLimitException limitExceeded(int maxByteCount) {
		// Same message as stock LimitedDataBufferList, so logs and error handlers read alike.
		return new DataBufferLimitException("Exceeded limit on max bytes to buffer : " + maxByteCount);
	}

}
