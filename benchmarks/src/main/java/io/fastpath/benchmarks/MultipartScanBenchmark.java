package io.fastpath.benchmarks;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.fastpath.form.LazyFormDecoding;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.multipart.PartEvent;
import org.springframework.http.codec.multipart.PartEventHttpMessageReader;

/**
 * The scan of a multipart body alone: one 4 MB file part of seeded random bytes, in 512
 * Netty pooled direct buffers of 8 KB as Reactor Netty hands them ({@link BodyBuffers}),
 * read as {@code Flux<PartEvent>} (no disk: the content events are the buffers' bytes),
 * every event's content released. What is left of the time is mostly the delimiter
 * search over the file's bytes, which the HTTP rows cannot isolate: their time moves by
 * more than the search costs. By hand only, not in the suite:
 * {@code java -jar benchmarks/target/benchmarks.jar MultipartScanBenchmark -prof gc}.
 */
@State(Scope.Thread)
@Warmup(iterations = 5, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 8, time = 1, timeUnit = TimeUnit.SECONDS)
@Fork(3)
public class MultipartScanBenchmark {

	private static final String BOUNDARY = "----FastpathBenchmarkBoundary7MA4YWxkTrZu0gW";

	private static final ResolvableType PART_EVENT = ResolvableType.forClass(PartEvent.class);

	private static final Map<String, Object> NO_HINTS = Collections.emptyMap();

	private final HttpMessageReader<PartEvent> stockReader = new PartEventHttpMessageReader();

	private HttpMessageReader<PartEvent> fastpathReader;

	private BodyBuffers body;

	private BenchmarkServerRequest request;

	@Setup
	@SuppressWarnings("unchecked")
	public void setUp() {
		// Built by the decorator, as the auto-configuration builds it.
		List<HttpMessageReader<?>> readers = new LazyFormDecoding(LazyFormDecoding.DEFAULT_MAX_FIELDS, true,
				BenchmarkMeters.listener("off"))
			.decorate(List.of(new PartEventHttpMessageReader()));
		this.fastpathReader = (HttpMessageReader<PartEvent>) readers.get(0);
		if (this.fastpathReader.getClass() == PartEventHttpMessageReader.class) {
			throw new IllegalStateException("Fastpath did not replace the part event reader");
		}
		byte[] file = new byte[4 * 1024 * 1024];
		new Random(20261202).nextBytes(file);
		ByteArrayOutputStream multipart = new ByteArrayOutputStream();
		multipart.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\";"
				+ " filename=\"data.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n")
			.getBytes(StandardCharsets.US_ASCII));
		multipart.writeBytes(file);
		multipart.writeBytes(("\r\n--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.US_ASCII));
		this.body = BodyBuffers.of(BufferFactories.NETTY_DIRECT, multipart.toByteArray(), 512);
		HttpHeaders headers = new HttpHeaders();
		headers.setContentType(MediaType.parseMediaType("multipart/form-data; boundary=" + BOUNDARY));
		this.request = new BenchmarkServerRequest(URI.create("http://localhost/upload"), headers);
	}

	@Benchmark
	public long stock() {
		return read(this.stockReader);
	}

	@Benchmark
	public long fastpath() {
		return read(this.fastpathReader);
	}

	private long read(HttpMessageReader<PartEvent> reader) {
		Long read = reader.read(PART_EVENT, this.request.withBody(this.body.flux()), NO_HINTS)
			.reduce(0L, (size, event) -> {
				long total = size + event.content().readableByteCount();
				DataBufferUtils.release(event.content());
				return total;
			})
			.block();
		if (read == null || read != 4 * 1024 * 1024) {
			throw new IllegalStateException("Read " + read + " bytes");
		}
		return read;
	}

	@TearDown
	public void tearDown() {
		this.body.release();
	}

}
