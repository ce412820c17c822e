package io.fastpath.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.WriteEvent;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@link Endpoint @Endpoint} that shows what Fastpath does in the application: the
 * active features, the readers it replaced on the server's codecs and on Spring Boot's
 * {@code WebClient.Builder}, the {@code fastpath.*} properties in effect, how many
 * bodies took each path and how many were written in batches (when Micrometer is present).
 *
 * @author Fastpath
 */
@Endpoint(id = "fastpath")
public class FastpathEndpoint {

	private final FastpathReport report;

	private final FastpathProperties properties;

	private final @Nullable ReadCounts counts;

	private final @Nullable WriteCounts writeCounts;

	/**
	 * Create an endpoint that describes the given application.
	 * @param beanFactory the application's beans
	 * @param properties the Fastpath properties in effect
	 */
	public FastpathEndpoint(ListableBeanFactory beanFactory, FastpathProperties properties) {
		this.report = new FastpathReport(beanFactory);
		this.properties = properties;
		this.counts = beanFactory.getBeanProvider(ReadCounts.class).getIfUnique();
		this.writeCounts = beanFactory.getBeanProvider(WriteCounts.class).getIfUnique();
	}

	/**
	 * Describe what Fastpath does.
	 * @return the description
	 */
	@ReadOperation
	public FastpathDescriptor fastpath() {
		List<ReadCount> reads = new ArrayList<>();
		List<RejectionCount> rejections = new ArrayList<>();
		if (this.counts != null) {
			for (ReadEvent event : ReadEvent.values()) {
				long count = this.counts.count(event);
				String feature = event.getFeature().tagValue();
				if (event.getOutcome() == ReadEvent.Outcome.REJECTED) {
					rejections.add(new RejectionCount(feature, event.getReason(), count));
				}
				else {
					reads.add(new ReadCount(feature, event.getPath(), event.getOutcome().tagValue(), event.getReason(),
							count));
				}
			}
		}
		return new FastpathDescriptor(this.report.features(), this.report.server(), this.report.webClient(),
				properties(), (this.counts != null) ? reads : null, (this.counts != null) ? rejections : null,
				writes(), batching());
	}

	private @Nullable List<WriteCount> writes() {
		WriteCounts counts = this.writeCounts;
		if (counts == null) {
			return null;
		}
		List<WriteCount> writes = new ArrayList<>();
		for (WriteEvent.Kind kind : WriteEvent.Kind.values()) {
			for (WriteEvent.Outcome outcome : WriteEvent.Outcome.values()) {
				writes.add(new WriteCount(kind.tagValue(), outcome.tagValue(), counts.bodies(kind, outcome)));
			}
		}
		return writes;
	}

	private @Nullable List<WriteBatching> batching() {
		WriteCounts counts = this.writeCounts;
		if (counts == null) {
			return null;
		}
		List<WriteBatching> batching = new ArrayList<>();
		for (WriteEvent.Kind kind : WriteEvent.Kind.values()) {
			batching.add(new WriteBatching(kind.tagValue(), counts.values(kind), counts.batches(kind)));
		}
		return batching;
	}

	private Map<String, Object> properties() {
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("fastpath.enabled", this.properties.isEnabled());
		properties.put("fastpath.buffer.enabled", this.properties.getBuffer().isEnabled());
		properties.put("fastpath.json.enabled", this.properties.getJson().isEnabled());
		properties.put("fastpath.json.optimize-creators", this.properties.getJson().isOptimizeCreators());
		properties.put("fastpath.json.write.enabled", this.properties.getJson().getWrite().isEnabled());
		properties.put("fastpath.form.enabled", this.properties.getForm().isEnabled());
		properties.put("fastpath.form.multipart.enabled", this.properties.getForm().getMultipart().isEnabled());
		properties.put("fastpath.form.max-parameters", this.properties.getForm().getMaxParameters());
		return properties;
	}

	/**
	 * What Fastpath does in the application.
	 *
	 * @param features the active features ({@code buffer}, {@code json}, {@code form},
	 * {@code json-write}, {@code form-arguments})
	 * @param server the readers and writers replaced on the server's codecs
	 * @param webClient the readers and writers replaced on Spring Boot's
	 * {@code WebClient.Builder}
	 * @param properties the {@code fastpath.*} properties in effect
	 * @param reads bodies read, by path ({@code null} without Micrometer)
	 * @param rejections bodies refused, by reason ({@code null} without Micrometer)
	 * @param writes bodies written in batches, by kind and outcome ({@code null} without
	 * Micrometer)
	 * @param batching the values of those bodies and the batches they went out in, by kind
	 * ({@code null} without Micrometer)
	 */
	public record FastpathDescriptor(List<String> features, CodecsDescriptor server, CodecsDescriptor webClient,
			Map<String, Object> properties, @Nullable List<ReadCount> reads, @Nullable List<RejectionCount> rejections,
			@Nullable List<WriteCount> writes, @Nullable List<WriteBatching> batching) implements OperationResponseBody {
	}

	/**
	 * The readers and writers Fastpath replaced in one set of codecs.
	 *
	 * @param active whether any reader or writer was replaced
	 * @param status {@code active}, or {@code not applied: } and why
	 * @param features the features behind the replaced readers
	 * @param replacedReaders each replaced reader, before and after
	 * @param replacedWriters each replaced writer, before and after
	 */
	public record CodecsDescriptor(boolean active, String status, List<String> features,
			List<ReplacedReader> replacedReaders, List<ReplacedWriter> replacedWriters) {
	}

	/**
	 * A reader replaced in place.
	 *
	 * @param before the stock reader (and its decoder)
	 * @param after Fastpath's reader (and its decoder)
	 */
	public record ReplacedReader(String before, String after) {
	}

	/**
	 * A writer replaced in place.
	 *
	 * @param before the stock writer (and its encoder)
	 * @param after Fastpath's writer (and its encoder)
	 */
	public record ReplacedWriter(String before, String after) {
	}

	/**
	 * How many bodies took one path, as the {@code fastpath.reads} counter.
	 *
	 * @param feature the feature
	 * @param path the path
	 * @param outcome {@code fast} or {@code stock}
	 * @param reason why the body was handed to stock, or {@code null}
	 * @param count how many bodies
	 */
	public record ReadCount(String feature, @Nullable String path, String outcome, @Nullable String reason,
			long count) {
	}

	/**
	 * How many bodies were refused for one reason, as the {@code fastpath.rejections}
	 * counter.
	 *
	 * @param feature the feature
	 * @param reason why
	 * @param count how many bodies
	 */
	public record RejectionCount(String feature, @Nullable String reason, long count) {
	}

	/**
	 * How many bodies of one kind, written in batches, ended one way, as the
	 * {@code fastpath.writes} counter.
	 *
	 * @param kind {@code json-array}, {@code json-stream} or {@code sse}
	 * @param outcome {@code complete}, {@code error} or {@code cancel}
	 * @param count how many bodies
	 */
	public record WriteCount(String kind, String outcome, long count) {
	}

	/**
	 * The values of the bodies of one kind written in batches, and the batches they went
	 * out in, as the {@code fastpath.writes.values} and {@code fastpath.writes.batches}
	 * counters: stock writers give each value a write of its own.
	 *
	 * @param kind {@code json-array}, {@code json-stream} or {@code sse}
	 * @param values how many values
	 * @param batches how many batches
	 */
	public record WriteBatching(String kind, long values, long batches) {
	}

}
