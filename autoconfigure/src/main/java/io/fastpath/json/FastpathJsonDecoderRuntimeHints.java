package io.fastpath.json;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Native-image hints for Netty's buffer type, which the decoder looks up by name to read
 * Netty's heap buffers in place: a native image finds a class by name only if it was
 * registered (Spring precomputes such lookups for its own classes only).
 *
 * @author Fastpath
 */
final class FastpathJsonDecoderRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.reflection().registerTypeIfPresent(classLoader, "io.netty.buffer.ByteBuf");
	}

}
