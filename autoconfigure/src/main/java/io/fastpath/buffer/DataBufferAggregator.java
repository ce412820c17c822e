package io.fastpath.buffer;

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
 * <li>A body of several heap buffers is copied once into one contiguous buffer of their
 * factory, sized from the expected length when the caller knows it (stock copies twice).
 * A body of several Netty buffers is gathered into a composite buffer without copying,
 * as stock does but without the intermediate list; one that trickles in as many small
 * pieces is moved into one contiguous buffer instead.</li>
 * <li>The byte limit is checked as early as possible: an expected length above it fails
 * before the body is read, and the running count fails on the buffer that crosses it,
 * with the stock {@link DataBufferLimitException}.</li>
 * <li>Every buffer received is released on error, on cancel and on the limit; an empty
 * body gives an empty {@code Mono}, as stock does.</li>
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
	 * {@code Content-Length} header), or a negative value when unknown; a hint used to
	 * size the joined buffer and to fail early, the body may still differ from it
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
		if (buffers instanceof Mono<?> mono && maxByteCount < 0) {
			// At most one buffer by contract and no limit to check: already aggregated.
			return (Mono<DataBuffer>) mono;
		}
		return new AggregatingMono(buffers, maxByteCount, expectedLength, limitExceeded);
	}

	static DataBufferLimitException limitExceeded(int maxByteCount) {
		// Same message as stock LimitedDataBufferList, so logs and error handlers read alike.
		return new DataBufferLimitException("Exceeded limit on max bytes to buffer : " + maxByteCount);
	}

}
