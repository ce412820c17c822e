package io.fastpath.autoconfigure;

import java.util.Arrays;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;

/**
 * Counts Fastpath's decisions with Micrometer:
 * <ul>
 * <li>{@value #READS}: bodies read, tagged {@code feature} ({@code buffer}, {@code json},
 * {@code form}), {@code path} ({@code flux}, {@code value}, {@code whole-body}, ...),
 * {@code outcome} ({@code fast} or {@code stock}) and {@code reason} (why a body was
 * handed to stock, {@code none} for a fast path);</li>
 * <li>{@value #REJECTIONS}: bodies refused, tagged {@code feature} and {@code reason}
 * ({@code too-large}, {@code too-many-fields}, {@code malformed}, ...).</li>
 * </ul>
 * Every counter is created when the registry is bound, one per {@link ReadEvent}, so
 * that recording a decision is an array read and an increment: no lookup, no allocation.
 * Decisions recorded before a registry is bound are not counted.
 *
 * @author Fastpath
 */
public final class FastpathMetrics implements MeterBinder, ReadListener, ReadCounts {

	/** Name of the counter of bodies read, by feature, path, outcome and reason. */
	public static final String READS = "fastpath.reads";

	/** Name of the counter of bodies refused, by feature and reason. */
	public static final String REJECTIONS = "fastpath.rejections";

	private static final String NONE = "none";

	private static final ReadEvent[] EVENTS = ReadEvent.values();

	/** The counters of each bound registry, indexed by {@link ReadEvent#ordinal()}. */
	private volatile Counter[][] bound = new Counter[0][];

	private MeterRegistry[] registries = new MeterRegistry[0];

	@Override
	public synchronized void bindTo(MeterRegistry registry) {
		for (MeterRegistry known : this.registries) {
			if (known == registry) {
				return;
			}
		}
		Counter[] counters = new Counter[EVENTS.length];
		for (ReadEvent event : EVENTS) {
			counters[event.ordinal()] = counter(event).register(registry);
		}
		this.registries = append(this.registries, registry);
		this.bound = append(this.bound, counters);
	}

	private static Counter.Builder counter(ReadEvent event) {
		String reason = (event.getReason() != null) ? event.getReason() : NONE;
		if (event.getOutcome() == ReadEvent.Outcome.REJECTED) {
			return Counter.builder(REJECTIONS)
				.description("Bodies Fastpath refused (answered with 400 or 413), by reason")
				.tag("feature", event.getFeature().tagValue())
				.tag("reason", reason);
		}
		String path = (event.getPath() != null) ? event.getPath() : NONE;
		return Counter.builder(READS)
			.description("Bodies read by Fastpath: by a fast path, or handed to stock Spring and why")
			.tag("feature", event.getFeature().tagValue())
			.tag("path", path)
			.tag("outcome", event.getOutcome().tagValue())
			.tag("reason", reason);
	}

	private static <T> T[] append(T[] array, T element) {
		T[] appended = Arrays.copyOf(array, array.length + 1);
		appended[array.length] = element;
		return appended;
	}

	@Override
	public void onRead(ReadEvent event) {
		for (Counter[] counters : this.bound) {
			counters[event.ordinal()].increment();
		}
	}

	@Override
	public long count(ReadEvent event) {
		Counter[][] bound = this.bound;
		return (bound.length > 0) ? (long) bound[0][event.ordinal()].count() : 0;
	}

}
