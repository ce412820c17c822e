package io.fastpath.json.write;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Whether the body of one write went out as a single batch that ended it: the source
 * completed while its first batch was being filled. {@link ReadyBatches} marks it just
 * before it emits that batch, and {@link BatchingJsonWriter} then writes the body as the
 * stock writer writes a {@code Mono}: one buffer, with a {@code Content-Length}. It
 * reaches the encoder as a hint, the one channel from a writer to the encoder it calls.
 *
 * @author Fastpath
 */
final class OneBatchBody {

	/** The hint that carries it from the writer to the encoder. */
	static final String HINT = OneBatchBody.class.getName();

	private volatile boolean oneBatch;

	/**
	 * Return the instance the hints carry, if any.
	 * @param hints the hints of an encoding
	 * @return the instance, or {@code null} if the writer does not ask
	 */
	static @Nullable OneBatchBody from(@Nullable Map<String, Object> hints) {
		return (hints != null && hints.get(HINT) instanceof OneBatchBody body) ? body : null;
	}

	/** The batch about to be emitted is the first and the last. */
	void markOneBatch() {
		this.oneBatch = true;
	}

	boolean isOneBatch() {
		return this.oneBatch;
	}

}
