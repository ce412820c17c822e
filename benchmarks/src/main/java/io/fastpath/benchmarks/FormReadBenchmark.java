package io.fastpath.benchmarks;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import io.fastpath.form.FormParameters;
import io.fastpath.form.LazyFormDecoding;
import io.fastpath.form.RequestParameters;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.core.ResolvableType;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.util.UriComponentsBuilder;

/**
 * A form body read as {@code ServerWebExchange.getFormData()} reads it, from one buffer on
 * heap or, as Reactor Netty hands it, a Netty pooled direct buffer ({@code factory}, see
 * {@link BodyBuffers}): the stock {@link FormHttpMessageReader} against Fastpath's lazy reader, then
 * <ul>
 * <li>{@code read2}: two fields read by name (one percent-encoded, one plain);</li>
 * <li>{@code map}: the whole multi-value map used;</li>
 * <li>{@code merged}: two lookups in query + form parameters, which stock code gets by
 * copying both maps into one, and Fastpath by a {@link RequestParameters} view.</li>
 * </ul>
 * A fifth to a third of the values are percent-encoded.
 */
@State(Scope.Thread)
@Warmup(iterations = 4, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 8, time = 500, timeUnit = TimeUnit.MILLISECONDS)
public class FormReadBenchmark {

	private static final ResolvableType FORM = ResolvableType.forClassWithGenerics(MultiValueMap.class, String.class,
			String.class);

	private static final Map<String, Object> NO_HINTS = Collections.emptyMap();

	@Param({ "5", "50" })
	public int fields;

	@Param({ "read2", "map", "merged" })
	public String use;

	@Param({ BufferFactories.HEAP, BufferFactories.NETTY_DIRECT })
	public String factory;

	/** Fastpath's meters: {@code off}, or {@code on} to measure their cost ({@link BenchmarkMeters}). */
	@Param("off")
	public String meters;

	private final FormHttpMessageReader stockReader = new FormHttpMessageReader();

	private HttpMessageReader<MultiValueMap<String, String>> fastpathReader;

	private final HttpHeaders headers = new HttpHeaders();

	private final URI uri = URI.create("http://localhost/orders?page=2&sort=date&filter=open");

	private final MultiValueMap<String, String> query = UriComponentsBuilder.fromUri(this.uri)
		.build()
		.getQueryParams();

	private BodyBuffers body;

	private BenchmarkServerRequest request;

	private String encodedName;

	private String plainName;

	private final ValueSink<MultiValueMap<String, String>> sink = new ValueSink<>();

	/**
	 * The combinations the suite runs, to keep it within its time: two fields read on heap
	 * and Netty direct buffers, the merged view and the whole map (5 fields) on heap.
	 * @param parameters one combination of the parameters
	 * @return whether the suite runs it
	 */
	static boolean inSuite(Map<String, String> parameters) {
		boolean heap = BufferFactories.HEAP.equals(parameters.get("factory"));
		String use = parameters.get("use");
		return "read2".equals(use) || (heap && ("merged".equals(use) || "5".equals(parameters.get("fields"))));
	}

	@Setup
	@SuppressWarnings("unchecked")
	public void setUp() {
		// Built by the decorator, as the auto-configuration builds it.
		this.fastpathReader = (HttpMessageReader<MultiValueMap<String, String>>) new LazyFormDecoding(1000,
				BenchmarkMeters.listener(this.meters))
			.decorate(List.of(new FormHttpMessageReader()))
			.get(0);
		StringBuilder form = new StringBuilder();
		if (this.fields == 5) {
			form.append("name=Ada+Lovelace&email=ada%40example.com&age=36&city=London&message=Hello%2C+world%21");
			this.encodedName = "email";
			this.plainName = "city";
		}
		else {
			for (int i = 0; i < this.fields; i++) {
				form.append(i == 0 ? "" : "&").append("field").append(i).append('=');
				form.append((i % 3 == 0) ? "value+" + i + "%2C+encoded%21" : "value" + i);
			}
			this.encodedName = "field30";
			this.plainName = "field41";
		}
		byte[] body = form.toString().getBytes(StandardCharsets.UTF_8);
		this.body = BodyBuffers.of(this.factory, body, 1);
		this.headers.setContentType(MediaType.APPLICATION_FORM_URLENCODED);
		this.headers.setContentLength(body.length);
		this.request = new BenchmarkServerRequest(this.uri, this.headers);
	}

	@Benchmark
	public int stock() {
		this.stockReader.readMono(FORM, request(), NO_HINTS).subscribe(this.sink);
		MultiValueMap<String, String> form = this.sink.take();
		return switch (this.use) {
			case "read2" -> length(form.getFirst(this.encodedName)) + length(form.getFirst(this.plainName));
			case "map" -> form.size();
			default -> {
				MultiValueMap<String, String> all = new LinkedMultiValueMap<>();
				this.query.forEach(all::addAll);
				form.forEach(all::addAll);
				yield length(all.getFirst("page")) + length(all.getFirst(this.encodedName));
			}
		};
	}

	@Benchmark
	public int fastpath() {
		this.fastpathReader.readMono(FORM, request(), NO_HINTS).subscribe(this.sink);
		MultiValueMap<String, String> form = this.sink.take();
		return switch (this.use) {
			case "read2" -> length(form.getFirst(this.encodedName)) + length(form.getFirst(this.plainName));
			case "map" -> form.size();
			default -> {
				RequestParameters all = new RequestParameters(this.query, FormParameters.of(form));
				yield length(all.getFirst("page")) + length(all.getFirst(this.encodedName));
			}
		};
	}

	private BenchmarkServerRequest request() {
		return this.request.withBody(this.body.flux());
	}

	@TearDown
	public void tearDown() {
		this.body.release();
	}

	/** A field the benchmark's forms always have: its length, failing loudly if it went missing. */
	private static int length(@Nullable String value) {
		return Objects.requireNonNull(value, "field missing").length();
	}

}
