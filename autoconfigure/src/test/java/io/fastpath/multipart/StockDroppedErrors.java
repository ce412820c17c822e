package io.fastpath.multipart;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import reactor.core.publisher.Hooks;

import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBufferLimitException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stock's multipart parser drops an error it meets after its subscriber is done (a body
 * that ends unclosed, part headers cut short or over their limit, after the reader has
 * failed or cancelled), and Reactor logs each with its stack trace. The tests read stock
 * through this: its dropped errors are collected instead, and must be errors stock
 * reports for a malformed or too large body, not anything else.
 */
final class StockDroppedErrors {

	private StockDroppedErrors() {
	}

	/**
	 * Runs a read of stock's, with the errors it drops collected and checked.
	 * @param <T> the read's outcome
	 * @param read the read, which blocks until the body is read or failed
	 * @return the read's outcome
	 */
	static <T> T collect(Supplier<T> read) {
		List<Throwable> dropped = new CopyOnWriteArrayList<>();
		Hooks.onErrorDropped(dropped::add);
		T outcome;
		try {
			outcome = read.get();
		}
		finally {
			Hooks.resetOnErrorDropped();
		}
		assertThat(dropped).as("errors stock's parser dropped")
			.allSatisfy((error) -> assertThat(error).isInstanceOfAny(DecodingException.class,
					DataBufferLimitException.class));
		return outcome;
	}

}
