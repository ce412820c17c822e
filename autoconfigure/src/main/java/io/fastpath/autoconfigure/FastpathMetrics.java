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
import io.fastpath.codec.WriteEvent;
import io.fastpath.codec.WriteListener;

import org.springframework.util.Assert;

/**
 * Counts Fastpath's decisions and batched writes with Micrometer:
 * <ul>
 * <li>{@value #READS}: bodies read, tagged {@code feature} ({@code buffer}, {@code json},
 * {@code form}), {@code path} ({@code flux}, {@code value}, {@code whole-body}, ...),
 * {@code outcome} ({@code fast} or {@code stock}) and {@code reason} (why a body was
 * handed to stock, {@code none} for a fast path);</li>
 * <li>{@value #REJECTIONS}: bodies refused, tagged {@code feature} and {@code reason}
 * ({@code too-large}, {@code too-many-fields}, {@code malformed}, ...);</li>
 * <li>{@value #WRITES}: bodies written in batches, tagged {@code kind}
 * ({@code json-array}, {@code json-stream}, {@code sse}) and {@code outcome}
 * ({@code complete}, {@code error}, {@code cancel});</li>
 * <li>{@value #WRITE_VALUES} and {@value #WRITE_BATCHES}: the values those bodies held and
 * the batches they went out in, tagged {@code kind}. Stock writers give each value a
 * write of its own: values per batch is how many writes batching saved.</li>
 * </ul>
 * Every counter is created when the registry is bound, one per {@link ReadEvent} and one
 * per kind and outcome of {@link WriteEvent}, so that recording is an array read and an
 * increment: no lookup, no allocation. What is recorded before a registry is bound is not
 * counted. The totals the {@code fastpath} endpoint shows are kept here too, beside the
 * meters: a counter's {@code count()} is a total on a cumulative registry but only the
 * last step's on a step registry (Datadog, New Relic, ...).
 * <p>To replace it, declare a bean of this type, for example with tags of your own on
 * every meter, as Spring Boot's own binders take them:
 * {@code @Bean FastpathMetrics fastpathMetrics() { return new FastpathMetrics(Tags.of("region", "eu")); }}.
 *
 * @author Fastpath
 */
public final class FastpathMetrics implements MeterBinder, ReadListener, ReadCounts, WriteListener, WriteCounts {

	/** Name of the counter of bodies read, by feature, path, outcome and reason. */
	public static final String READS = "fastpath.reads";

	/** Name of the counter of bodies refused, by feature and reason. */
	public static final String REJECTIONS = "fastpath.rejections";

	/** Name of the counter of bodies written in batches, by kind and outcome. */
	public static final String WRITES = "fastpath.writes";

	/** Name of the counter of the values of bodies written in batches, by kind. */
	public static final String WRITE_VALUES = "fastpath.writes.values";

	/** Name of the counter of the batches bodies were written in, by kind. */
	public static final String WRITE_BATCHES = "fastpath.writes.batches";

	private static final String NONE = "none";

	private static final ReadEvent[] EVENTS = ReadEvent.values();

	private static final WriteEvent.Kind[] KINDS = WriteEvent.Kind.values();

	private static final WriteEvent.Outcome[] OUTCOMES = WriteEvent.Outcome.values();

	private final Iterable<Tag> tags;

	/** Decisions recorded since the first registry was bound, indexed by {@link ReadEvent#ordinal()}. */
	private final LongAdder[] totals = adders(EVENTS.length);

	/** Bodies written since the first registry was bound, indexed by {@link #writeIndex}. */
	private final LongAdder[] writeTotals = adders(KINDS.length * OUTCOMES.length);

	/** Values written, indexed by {@link WriteEvent.Kind#ordinal()}. */
	private final LongAdder[] valueTotals = adders(KINDS.length);

	/** Batches written, indexed by {@link WriteEvent.Kind#ordinal()}. */
	private final LongAdder[] batchTotals = adders(KINDS.length);

	/** The counters of each bound registry. */
	private volatile Meters[] bound = new Meters[0];

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
	}

	private static LongAdder[] adders(int count) {
		LongAdder[] adders = new LongAdder[count];
		for (int i = 0; i < count; i++) {
			adders[i] = new LongAdder();
		}
		return adders;
	}

	@Override
	public synchronized void bindTo(MeterRegistry registry) {
		for (MeterRegistry known : this.registries) {
			if (known == registry) {
				return;
			}
		}
		Counter[] reads = new Counter[EVENTS.length];
		for (ReadEvent event : EVENTS) {
			reads[event.ordinal()] = counter(event).tags(this.tags).register(registry);
		}
		Counter[] writes = new Counter[KINDS.length * OUTCOMES.length];
		Counter[] values = new Counter[KINDS.length];
		Counter[] batches = new Counter[KINDS.length];
		for (WriteEvent.Kind kind : KINDS) {
			for (WriteEvent.Outcome outcome : OUTCOMES) {
				writes[writeIndex(kind, outcome)] = Counter.builder(WRITES)
					.description("Bodies Fastpath wrote in batches, by kind and how they ended")
					.tag("kind", kind.tagValue())
					.tag("outcome", outcome.tagValue())
					.tags(this.tags)
					.register(registry);
			}
			values[kind.ordinal()] = Counter.builder(WRITE_VALUES)
				.description("Values of the bodies Fastpath wrote in batches (each a write of its own with stock)")
				.tag("kind", kind.tagValue())
				.tags(this.tags)
				.register(registry);
			batches[kind.ordinal()] = Counter.builder(WRITE_BATCHES)
				.description("Batches the bodies Fastpath wrote went out in, each one buffer and one write")
				.tag("kind", kind.tagValue())
				.tags(this.tags)
				.register(registry);
		}
		this.registries = append(this.registries, registry);
		this.bound = append(this.bound, new Meters(reads, writes, values, batches));
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

	private static int writeIndex(WriteEvent.Kind kind, WriteEvent.Outcome outcome) {
		return kind.ordinal() * OUTCOMES.length + outcome.ordinal();
	}

	private static <T> T[] append(T[] array, T element) {
		T[] appended = Arrays.copyOf(array, array.length + 1);
		appended[array.length] = element;
		return appended;
	}

	@Override
	public void onRead(ReadEvent event) {
		Meters[] bound = this.bound;
		if (bound.length == 0) {
			return;
		}
		for (Meters meters : bound) {
			meters.reads()[event.ordinal()].increment();
		}
		this.totals[event.ordinal()].increment();
	}

	@Override
	public void onWrite(WriteEvent event) {
		Meters[] bound = this.bound;
		if (bound.length == 0) {
			return;
		}
		int index = writeIndex(event.kind(), event.outcome());
		int kind = event.kind().ordinal();
		for (Meters meters : bound) {
			meters.writes()[index].increment();
			meters.values()[kind].increment(event.values());
			meters.batches()[kind].increment(event.batches());
		}
		this.writeTotals[index].increment();
		this.valueTotals[kind].add(event.values());
		this.batchTotals[kind].add(event.batches());
	}

	/**
	 * Return how many times the given decision was recorded since a registry was bound: a
	 * total, whatever the registry's step.
	 */
	@Override
	public long count(ReadEvent event) {
		return this.totals[event.ordinal()].sum();
	}

	/**
	 * Return how many bodies of the given kind ended with the given outcome since a
	 * registry was bound: a total, whatever the registry's step.
	 */
	@Override
	public long bodies(WriteEvent.Kind kind, WriteEvent.Outcome outcome) {
		return this.writeTotals[writeIndex(kind, outcome)].sum();
	}

	@Override
	public long values(WriteEvent.Kind kind) {
		return this.valueTotals[kind.ordinal()].sum();
	}

	@Override
	public long batches(WriteEvent.Kind kind) {
		return this.batchTotals[kind.ordinal()].sum();
	}

	/**
	 * The counters of one registry: reads indexed by {@link ReadEvent#ordinal()}, bodies
	 * written by {@link #writeIndex}, values and batches by {@link WriteEvent.Kind#ordinal()}.
	 */
	private record Meters(Counter[] reads, Counter[] writes, Counter[] values, Counter[] batches) {
	}

}
