package io.fastpath.benchmarks;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.fastpath.form.LazyFormDecoding;
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
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.FormFieldPart;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;
import org.springframework.http.codec.multipart.Part;
import org.springframework.util.MultiValueMap;

/**
 * The reader alone of {@code HttpRequestBenchmark}'s {@code multipart-5} against its
 * {@code form-5}: the same 5 fields read into the map {@code getMultipartData()} and
 * {@code getFormData()} give, one field's value taken, then (multipart) every part deleted
 * as the exchange deletes them when the request ends. From one buffer, on heap or as
 * Reactor Netty hands it, a Netty pooled direct buffer ({@link BodyBuffers}):
 * <ul>
 * <li>{@code urlencoded}: the fields urlencoded, Fastpath's form reader (the reference
 * a multipart form is compared with);</li>
 * <li>{@code stock}: Spring's {@code MultipartHttpMessageReader} over its
 * {@code DefaultPartHttpMessageReader};</li>
 * <li>{@code fastpath}: the reader Fastpath puts in its place.</li>
 * </ul>
 * What the server adds around the reader per request (the exchange, the multipart
 * {@code Content-Type} parsed, the parts' cleanup) is the same on both sides and is in
 * the HTTP row, not here: this row is the committed probe of what the reader itself
 * allocates ({@code -prof gc}). The suite's table has columns for stock and Fastpath
 * only; the urlencoded reference is in JMH's own output
 * ({@code java -jar benchmarks/target/benchmarks.jar MultipartFormReadBenchmark -prof gc}).
 */
@State(Scope.Thread)
@Warmup(iterations = 4, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 8, time = 500, timeUnit = TimeUnit.MILLISECONDS)
public class MultipartFormReadBenchmark {

	private static final String BOUNDARY = "----FastpathBenchmarkBoundary7MA4YWxkTrZu0gW";

	private static final ResolvableType FORM = ResolvableType.forClassWithGenerics(MultiValueMap.class, String.class,
			String.class);

	private static final ResolvableType PARTS = ResolvableType.forClassWithGenerics(MultiValueMap.class, String.class,
			Part.class);

	private static final Map<String, Object> NO_HINTS = Collections.emptyMap();

	/** The five fields of {@code HttpRequestBenchmark}'s {@code form-5}, decoded. */
	private static final String[][] FIELDS = { { "name", "Ada Lovelace" }, { "email", "ada@example.com" },
			{ "age", "36" }, { "city", "London" }, { "message", "Hello, world!" } };

	private static final String URLENCODED = "name=Ada+Lovelace&email=ada%40example.com&age=36&city=London"
			+ "&message=Hello%2C+world%21";

	@Param({ BufferFactories.HEAP, BufferFactories.NETTY_DIRECT })
	public String factory;

	/**
	 * The combinations the suite runs, to keep it within its time: Netty's pooled direct
	 * buffers, as Reactor Netty hands them ({@code -p factory=heap} by name).
	 * @param parameters one combination of the parameters
	 * @return whether the suite runs it
	 */
	static boolean inSuite(Map<String, String> parameters) {
		return BufferFactories.NETTY_DIRECT.equals(parameters.get("factory"));
	}

	private final MultipartHttpMessageReader stockReader = new MultipartHttpMessageReader(
			new DefaultPartHttpMessageReader());

	private HttpMessageReader<MultiValueMap<String, Part>> fastpathReader;

	private HttpMessageReader<MultiValueMap<String, String>> formReader;

	private BodyBuffers multipartBody;

	private BodyBuffers formBody;

	private BenchmarkServerRequest multipartRequest;

	private BenchmarkServerRequest formRequest;

	private final ValueSink<MultiValueMap<String, Part>> parts = new ValueSink<>();

	private final ValueSink<MultiValueMap<String, String>> form = new ValueSink<>();

	@Setup
	@SuppressWarnings("unchecked")
	public void setUp() {
		// Built by the decorator, as the auto-configuration builds them.
		List<HttpMessageReader<?>> readers = new LazyFormDecoding(LazyFormDecoding.DEFAULT_MAX_FIELDS, true,
				BenchmarkMeters.listener("off"))
			.decorate(List.of(new FormHttpMessageReader(),
					new MultipartHttpMessageReader(new DefaultPartHttpMessageReader())));
		this.formReader = (HttpMessageReader<MultiValueMap<String, String>>) readers.get(0);
		this.fastpathReader = (HttpMessageReader<MultiValueMap<String, Part>>) readers.get(1);
		if (this.fastpathReader.getClass() == MultipartHttpMessageReader.class) {
			throw new IllegalStateException("Fastpath did not replace the multipart reader");
		}
		StringBuilder multipart = new StringBuilder();
		for (String[] field : FIELDS) {
			multipart.append("--")
				.append(BOUNDARY)
				.append("\r\nContent-Disposition: form-data; name=\"")
				.append(field[0])
				.append("\"\r\n\r\n")
				.append(field[1])
				.append("\r\n");
		}
		multipart.append("--").append(BOUNDARY).append("--\r\n");
		this.multipartBody = BodyBuffers.of(this.factory, multipart.toString().getBytes(StandardCharsets.UTF_8), 1);
		this.formBody = BodyBuffers.of(this.factory, URLENCODED.getBytes(StandardCharsets.UTF_8), 1);
		HttpHeaders multipartHeaders = new HttpHeaders();
		multipartHeaders.setContentType(MediaType.parseMediaType("multipart/form-data; boundary=" + BOUNDARY));
		this.multipartRequest = new BenchmarkServerRequest(URI.create("http://localhost/multipart"),
				multipartHeaders);
		HttpHeaders formHeaders = new HttpHeaders();
		formHeaders.setContentType(MediaType.APPLICATION_FORM_URLENCODED);
		this.formRequest = new BenchmarkServerRequest(URI.create("http://localhost/form"), formHeaders);
	}

	@Benchmark
	public int urlencoded() {
		this.formReader.readMono(FORM, this.formRequest.withBody(this.formBody.flux()), NO_HINTS)
			.subscribe(this.form);
		String city = this.form.take().getFirst("city");
		return (city != null) ? city.length() : -1;
	}

	@Benchmark
	public int stock() {
		return readCity(this.stockReader);
	}

	@Benchmark
	public int fastpath() {
		return readCity(this.fastpathReader);
	}

	private int readCity(HttpMessageReader<MultiValueMap<String, Part>> reader) {
		reader.readMono(PARTS, this.multipartRequest.withBody(this.multipartBody.flux()), NO_HINTS)
			.subscribe(this.parts);
		MultiValueMap<String, Part> parts = this.parts.take();
		int length = (parts.getFirst("city") instanceof FormFieldPart city) ? city.value().length() : -1;
		for (List<Part> named : parts.values()) {
			for (Part part : named) {
				part.delete().subscribe();
			}
		}
		return length;
	}

	@TearDown
	public void tearDown() {
		this.multipartBody.release();
		this.formBody.release();
	}

}
