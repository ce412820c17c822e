package io.fastpath.buffer;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Native-image hints for the classes the aggregator looks up by name to learn whether
 * Netty and Jackson are present: a native image finds a class by name only if it was
 * registered (Spring precomputes such lookups for its own classes only). Without them the
 * aggregator would take both for absent: it would copy Netty bodies instead of composing
 * them, and leave bodies for Jackson's decoders to stock.
 *
 * @author Fastpath
 */
final class AggregatorRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.reflection().registerTypeIfPresent(classLoader, "io.netty.buffer.ByteBuf");
		hints.reflection().registerTypeIfPresent(classLoader, "tools.jackson.databind.ObjectMapper");
	}

}
