package io.fastpath.autoconfigure;

import java.util.Set;
import java.util.stream.Collectors;

import io.fastpath.codec.ReadEvent;
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
				"feature=form,outcome=stock,path=response,reason=client-response");
		assertThat(rejections).containsExactlyInAnyOrder("feature=json,reason=malformed",
				"feature=json,reason=invalid", "feature=json,reason=constraint", "feature=json,reason=too-large",
				"feature=buffer,reason=too-large", "feature=form,reason=too-large",
				"feature=form,reason=too-many-fields", "feature=form,reason=malformed");
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
		for (SimpleMeterRegistry registry : new SimpleMeterRegistry[] { this.registry, other }) {
			Counter counter = registry.get("fastpath.reads").tag("feature", "form").tag("path", "request").counter();
			assertThat(counter.count()).isEqualTo(1);
		}
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
		clock.add(stepConfig.step());
		assertThat(step.get("fastpath.reads").tag("path", "flux").tag("outcome", "fast").counter().count())
			.isLessThan(3);
		assertThat(this.metrics.count(ReadEvent.JSON_FLUX)).isEqualTo(3);
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
