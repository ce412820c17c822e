package io.fastpath.benchmarks;

import io.fastpath.autoconfigure.FastpathMetrics;
import io.fastpath.codec.ReadListener;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The {@code meters} parameter of the benchmarks: {@code off} (the default, as without
 * Micrometer) gives Fastpath's readers no listener, {@code on} gives them Fastpath's
 * Micrometer counters bound to a {@link SimpleMeterRegistry}, as an application with
 * Actuator has them. {@code -p meters=off,on} measures what the meters cost.
 */
final class BenchmarkMeters {

	private BenchmarkMeters() {
	}

	static ReadListener listener(String meters) {
		return switch (meters) {
			case "off" -> ReadListener.NONE;
			case "on" -> {
				FastpathMetrics metrics = new FastpathMetrics();
				metrics.bindTo(new SimpleMeterRegistry());
				yield metrics;
			}
			default -> throw new IllegalArgumentException("Unknown meters setting " + meters);
		};
	}

}
