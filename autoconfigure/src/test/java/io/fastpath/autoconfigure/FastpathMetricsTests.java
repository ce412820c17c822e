package io.fastpath.autoconfigure;

import java.util.Set;
import java.util.stream.Collectors;

import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.WriteEvent;
import io.fastpath.codec.WriteEvent.Kind;
import io.fastpath.codec.WriteEvent.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.CountingMode;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link FastpathMetrics}.
 */
class FastpathMetricsTests {

	private final FastpathMetrics metrics = new FastpathMetrics();

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	@Test
	void registersOneCounterPerDecisionWhenBound() {
		this.metrics.bindTo(this.registry);
		Set<String> reads = this.registry.find("fastpath.reads")
			.counters()
			.stream()
			.map(FastpathMetricsTests::tags)
			.collect(Collectors.toSet());
		Set<String> rejections = this.registry.find("fastpath.rejections")
			.counters()
			.stream()
			.map(FastpathMetricsTests::tags)
			.collect(Collectors.toSet());
		assertThat(reads).containsExactlyInAnyOrder("feature=json,outcome=fast,path=flux,reason=none",
				"feature=json,outcome=fast,path=value,reason=none",
				"feature=json,outcome=fast,path=primitive-array,reason=none",
				"feature=json,outcome=fast,path=value-streamed,reason=none",
				"feature=json,outcome=stock,path=flux,reason=flux-of-collections",
				"feature=json,outcome=stock,path=flux,reason=charset",
				"feature=json,outcome=stock,path=flux,reason=mapper-syntax",
				"feature=json,outcome=stock,path=flux,reason=input-decorator",
				"feature=json,outcome=stock,path=flux,reason=no-mapper",
				"feature=buffer,outcome=fast,path=whole-body,reason=none",
				"feature=form,outcome=fast,path=request,reason=none",
				"feature=form,outcome=fast,path=multipart,reason=none",
				"feature=form,outcome=stock,path=multipart,reason=part-reader",
				"feature=form,outcome=fast,path=part-events,reason=none",
				"feature=form,outcome=stock,path=response,reason=client-response");
		assertThat(rejections).containsExactlyInAnyOrder("feature=json,reason=malformed",
				"feature=json,reason=invalid", "feature=json,reason=constraint", "feature=json,reason=too-large",
				"feature=buffer,reason=too-large", "feature=form,reason=too-large",
				"feature=form,reason=too-many-fields", "feature=form,reason=malformed");
	}

	@Test
	void registersOneCounterPerKindAndOutcomeOfWritesAndTheirValuesAndBatchesPerKindWhenBound() {
		this.metrics.bindTo(this.registry);
		Set<String> writes = this.registry.find("fastpath.writes")
			.counters()
			.stream()
			.map(FastpathMetricsTests::tags)
			.collect(Collectors.toSet());
		assertThat(writes).containsExactlyInAnyOrder("kind=json-array,outcome=complete",
				"kind=json-array,outcome=error", "kind=json-array,outcome=cancel", "kind=json-stream,outcome=complete",
				"kind=json-stream,outcome=error", "kind=json-stream,outcome=cancel", "kind=sse,outcome=complete",
				"kind=sse,outcome=error", "kind=sse,outcome=cancel");
		for (String name : new String[] { "fastpath.writes.values", "fastpath.writes.batches" }) {
			assertThat(this.registry.find(name).counters()).extracting(FastpathMetricsTests::tags)
				.as(name)
				.containsExactlyInAnyOrder("kind=json-array", "kind=json-stream", "kind=sse");
		}
	}

	@Test
	void countsEachBodyWrittenByKindAndOutcomeAndAddsItsValuesAndBatchesToItsKind() {
		this.metrics.bindTo(this.registry);
		this.metrics.onWrite(new WriteEvent(Kind.JSON_ARRAY, Outcome.COMPLETE, 1000, 3, 40_000));
		this.metrics.onWrite(new WriteEvent(Kind.JSON_ARRAY, Outcome.CANCEL, 20, 2, 300));
		this.metrics.onWrite(new WriteEvent(Kind.SERVER_SENT_EVENTS, Outcome.ERROR, 5, 1, 100));
		assertThat(this.registry.get("fastpath.writes").tags("kind", "json-array", "outcome", "complete").counter()
			.count()).isEqualTo(1);
		assertThat(this.registry.get("fastpath.writes").tags("kind", "json-array", "outcome", "cancel").counter()
			.count()).isEqualTo(1);
		assertThat(this.registry.get("fastpath.writes").tags("kind", "sse", "outcome", "error").counter().count())
			.isEqualTo(1);
		assertThat(this.registry.get("fastpath.writes").tags("kind", "json-stream").counters())
			.allSatisfy((counter) -> assertThat(counter.count()).isZero());
		assertThat(this.registry.get("fastpath.writes.values").tag("kind", "json-array").counter().count())
			.isEqualTo(1020);
		assertThat(this.registry.get("fastpath.writes.batches").tag("kind", "json-array").counter().count())
			.isEqualTo(5);
		assertThat(this.registry.get("fastpath.writes.values").tag("kind", "sse").counter().count()).isEqualTo(5);
		assertThat(this.registry.get("fastpath.writes.batches").tag("kind", "sse").counter().count()).isEqualTo(1);
		assertThat(this.metrics.bodies(Kind.JSON_ARRAY, Outcome.COMPLETE)).isEqualTo(1);
		assertThat(this.metrics.bodies(Kind.SERVER_SENT_EVENTS, Outcome.ERROR)).isEqualTo(1);
		assertThat(this.metrics.bodies(Kind.JSON_STREAM, Outcome.COMPLETE)).isZero();
		assertThat(this.metrics.values(Kind.JSON_ARRAY)).isEqualTo(1020);
		assertThat(this.metrics.batches(Kind.JSON_ARRAY)).isEqualTo(5);
		assertThat(this.metrics.values(Kind.JSON_STREAM)).isZero();
	}

	@Test
	void countsNoWriteBeforeARegistryIsBound() {
		this.metrics.onWrite(new WriteEvent(Kind.JSON_STREAM, Outcome.COMPLETE, 10, 1, 30));
		assertThat(this.metrics.bodies(Kind.JSON_STREAM, Outcome.COMPLETE)).isZero();
		assertThat(this.metrics.values(Kind.JSON_STREAM)).isZero();
		this.metrics.bindTo(this.registry);
		assertThat(this.registry.get("fastpath.writes.values").tag("kind", "json-stream").counter().count()).isZero();
	}

	@Test
	void countsEachDecisionOnItsOwnCounter() {
		this.metrics.bindTo(this.registry);
		this.metrics.onRead(ReadEvent.JSON_FLUX_OF_COLLECTIONS);
		this.metrics.onRead(ReadEvent.JSON_FLUX_OF_COLLECTIONS);
		this.metrics.onRead(ReadEvent.FORM_TOO_MANY_FIELDS);
		assertThat(this.registry.get("fastpath.reads").tag("reason", "flux-of-collections").counter().count())
			.isEqualTo(2);
		assertThat(this.registry.get("fastpath.rejections").tag("reason", "too-many-fields").counter().count())
			.isEqualTo(1);
		assertThat(this.registry.get("fastpath.reads").tag("path", "flux").tag("outcome", "fast").counter().count())
			.isZero();
		assertThat(this.metrics.count(ReadEvent.JSON_FLUX_OF_COLLECTIONS)).isEqualTo(2);
		assertThat(this.metrics.count(ReadEvent.JSON_FLUX)).isZero();
	}

	@Test
	void countsNothingBeforeARegistryIsBound() {
		this.metrics.onRead(ReadEvent.JSON_FLUX);
		assertThat(this.metrics.count(ReadEvent.JSON_FLUX)).isZero();
		this.metrics.bindTo(this.registry);
		assertThat(this.registry.get("fastpath.reads").tag("path", "flux").tag("outcome", "fast").counter().count())
			.isZero();
	}

	@Test
	void countsOnceWhenBoundTwiceToTheSameRegistry() {
		this.metrics.bindTo(this.registry);
		this.metrics.bindTo(this.registry);
		this.metrics.onRead(ReadEvent.BUFFER_WHOLE_BODY);
		assertThat(this.registry.get("fastpath.reads").tag("feature", "buffer").counter().count()).isEqualTo(1);
	}

	@Test
	void countsInEveryRegistryItIsBoundTo() {
		SimpleMeterRegistry other = new SimpleMeterRegistry();
		this.metrics.bindTo(this.registry);
		this.metrics.bindTo(other);
		this.metrics.onRead(ReadEvent.FORM_REQUEST);
		this.metrics.onWrite(new WriteEvent(Kind.JSON_STREAM, Outcome.COMPLETE, 10, 2, 30));
		for (SimpleMeterRegistry registry : new SimpleMeterRegistry[] { this.registry, other }) {
			Counter counter = registry.get("fastpath.reads").tag("feature", "form").tag("path", "request").counter();
			assertThat(counter.count()).isEqualTo(1);
			assertThat(registry.get("fastpath.writes").tags("kind", "json-stream", "outcome", "complete").counter()
				.count()).isEqualTo(1);
			assertThat(registry.get("fastpath.writes.batches").tag("kind", "json-stream").counter().count())
				.isEqualTo(2);
		}
		assertThat(this.metrics.values(Kind.JSON_STREAM)).as("the endpoint's total, counted once").isEqualTo(10);
	}

	@Test
	void countsForTheEndpointAreTotalsEvenOnAStepRegistry() {
		// A step registry's counter answers the last completed step, not a total.
		MockClock clock = new MockClock();
		SimpleConfig stepConfig = new SimpleConfig() {
			@Override
			public @Nullable String get(String key) {
				return null;
			}

			@Override
			public CountingMode mode() {
				return CountingMode.STEP;
			}
		};
		SimpleMeterRegistry step = new SimpleMeterRegistry(stepConfig, clock);
		this.metrics.bindTo(step);
		this.metrics.onRead(ReadEvent.JSON_FLUX);
		this.metrics.onRead(ReadEvent.JSON_FLUX);
		clock.add(stepConfig.step());
		this.metrics.onRead(ReadEvent.JSON_FLUX);
		this.metrics.onWrite(new WriteEvent(Kind.JSON_ARRAY, Outcome.COMPLETE, 10, 1, 30));
		clock.add(stepConfig.step());
		this.metrics.onWrite(new WriteEvent(Kind.JSON_ARRAY, Outcome.COMPLETE, 10, 1, 30));
		clock.add(stepConfig.step());
		assertThat(step.get("fastpath.reads").tag("path", "flux").tag("outcome", "fast").counter().count())
			.isLessThan(3);
		assertThat(this.metrics.count(ReadEvent.JSON_FLUX)).isEqualTo(3);
		assertThat(step.get("fastpath.writes.values").tag("kind", "json-array").counter().count()).isLessThan(20);
		assertThat(this.metrics.bodies(Kind.JSON_ARRAY, Outcome.COMPLETE)).isEqualTo(2);
		assertThat(this.metrics.values(Kind.JSON_ARRAY)).isEqualTo(20);
		assertThat(this.metrics.batches(Kind.JSON_ARRAY)).isEqualTo(2);
	}

	@Test
	void tagsOfTheApplicationsOwnGoOnEveryMeter() {
		FastpathMetrics tagged = new FastpathMetrics(Tags.of("region", "eu"));
		tagged.bindTo(this.registry);
		assertThat(this.registry.getMeters()).isNotEmpty()
			.allSatisfy((meter) -> assertThat(meter.getId().getTag("region")).isEqualTo("eu"));
	}

	private static String tags(Meter meter) {
		return meter.getId()
			.getTags()
			.stream()
			.map((tag) -> tag.getKey() + "=" + tag.getValue())
			.sorted()
			.collect(Collectors.joining(","));
	}

}
