/**
 * Whole-body aggregation of {@code DataBuffer}s that short-circuits the one-buffer case:
 * {@link io.fastpath.buffer.DataBufferAggregator} and the reader that puts it under the
 * stock decoders. Free of Spring Boot, so plain Spring WebFlux applications can use it.
 */
@NullMarked
package io.fastpath.buffer;

import org.jspecify.annotations.NullMarked;
