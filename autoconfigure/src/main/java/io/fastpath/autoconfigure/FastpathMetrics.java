package io.fastpath.autoconfigure;

import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;

import org.springframework.util.Assert;

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
 * Decisions recorded before a registry is bound are not counted. The totals the
 * {@code fastpath} endpoint shows are kept here too, beside the meters: a counter's
 * {@code count()} is a total on a cumulative registry but only the last step's on a step
 * registry (Datadog, New Relic, ...).
 * <p>To replace it, declare a bean of this type, for example with tags of your own on
 * every meter, as Spring Boot's own binders take them:
 * {@code @Bean FastpathMetrics fastpathMetrics() { return new FastpathMetrics(Tags.of("region", "eu")); }}.
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

	private final Iterable<Tag> tags;

	/** Decisions recorded since the first registry was bound, indexed by {@link ReadEvent#ordinal()}. */
	private final LongAdder[] totals = new LongAdder[EVENTS.length];

	/** The counters of each bound registry, indexed by {@link ReadEvent#ordinal()}. */
	private volatile Counter[][] bound = new Counter[0][];

	private MeterRegistry[] registries = new MeterRegistry[0];

	/**
	 * Create the meters with Fastpath's tags only.
	 */
	public FastpathMetrics() {
		this(Tags.empty());
	}

	/**
	 * Create the meters with the given tags added to Fastpath's own.
	 * @param tags the tags to add to every meter
	 */
	public FastpathMetrics(Iterable<Tag> tags) {
		Assert.notNull(tags, "'tags' must not be null");
		this.tags = tags;
		for (int i = 0; i < this.totals.length; i++) {
			this.totals[i] = new LongAdder();
		}
	}

	@Override
	public synchronized void bindTo(MeterRegistry registry) {
		for (MeterRegistry known : this.registries) {
			if (known == registry) {
				return;
			}
		}
		Counter[] counters = new Counter[EVENTS.length];
		for (ReadEvent event : EVENTS) {
			counters[event.ordinal()] = counter(event).tags(this.tags).register(registry);
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
		Counter[][] bound = this.bound;
		if (bound.length == 0) {
			return;
		}
		for (Counter[] counters : bound) {
			counters[event.ordinal()].increment();
		}
		this.totals[event.ordinal()].increment();
	}

	/**
	 * Return how many times the given decision was recorded since a registry was bound: a
	 * total, whatever the registry's step.
	 */
	@Override
	public long count(ReadEvent event) {
		return this.totals[event.ordinal()].sum();
	}

}
