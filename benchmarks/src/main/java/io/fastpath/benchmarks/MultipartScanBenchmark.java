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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.publisher.Mono;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.multipart.PartEvent;
import org.springframework.http.codec.multipart.PartEventHttpMessageReader;

/**
 * The scan of a multipart body alone, in buffers of 8 KB ({@link BodyBuffers}): Netty
 * pooled direct ones as Reactor Netty hands them, or heap ones as Tomcat and Jetty's
 * adapters do ({@link #factory}), read as {@code Flux<PartEvent>} (no disk: the
 * content events are the buffers' bytes), every event's content released. The bodies
 * ({@link #body}): {@code upload}, one 4 MB file part of seeded random bytes, where what
 * is left of the time is mostly the delimiter search over the file's bytes, which the HTTP
 * rows cannot isolate (their time moves by more than the search costs); and hostile
 * bodies that a search comparing backwards from the delimiter's last byte reads over and
 * over, with no part in them: both readers fail them as malformed once they have searched
 * them whole for the first boundary. By hand only, not in the suite:
 * {@code java -jar benchmarks/target/benchmarks.jar MultipartScanBenchmark -prof gc}; a
 * hostile body alone with {@code -p body=hostile-4mb} (in single shots, {@code -bm ss},
 * against a build whose search takes seconds over one), on one kind of buffer with
 * {@code -p factory=heap}.
 */
@State(Scope.Thread)
@Warmup(iterations = 5, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 8, time = 1, timeUnit = TimeUnit.SECONDS)
@Fork(3)
public class MultipartScanBenchmark {

	private static final String BOUNDARY = "----FastpathBenchmarkBoundary7MA4YWxkTrZu0gW";

	private static final ResolvableType PART_EVENT = ResolvableType.forClass(PartEvent.class);

	private static final Map<String, Object> NO_HINTS = Collections.emptyMap();

	/** The size of each buffer of a body. */
	private static final int BUFFER_SIZE = 8 * 1024;

	/**
	 * The body: {@code upload}, the 4 MB file part; {@code hostile-1mb} and
	 * {@code hostile-4mb}, that many bytes of {@code a} under a boundary of 4,000
	 * {@code a}; {@code periodic-1mb}, 1 MB of {@code ab} under a boundary of 2,000
	 * {@code ab}; {@code dashed-4mb}, {@code hostile-4mb} with a {@code -} (the first byte
	 * of the first boundary) at every 64th byte, so that no buffer's search can skip far
	 * to it.
	 */
	@Param({ "upload", "hostile-1mb", "hostile-4mb", "periodic-1mb", "dashed-4mb" })
	public String body;

	/** The buffers the body arrives in, one of {@link BufferFactories}. */
	@Param({ BufferFactories.NETTY_DIRECT, BufferFactories.HEAP })
	public String factory;

	private final HttpMessageReader<PartEvent> stockReader = new PartEventHttpMessageReader();

	private HttpMessageReader<PartEvent> fastpathReader;

	private BodyBuffers buffers;

	/** The bytes of content a read gives, or -1 for a body it fails as malformed. */
	private long expected;

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
		String boundary;
		byte[] bytes;
		switch (this.body) {
			case "upload" -> {
				boundary = BOUNDARY;
				bytes = upload();
				this.expected = 4 * 1024 * 1024;
			}
			case "hostile-1mb", "hostile-4mb" -> {
				boundary = "a".repeat(4000);
				bytes = "a".repeat(this.body.equals("hostile-1mb") ? 1024 * 1024 : 4 * 1024 * 1024)
					.getBytes(StandardCharsets.US_ASCII);
				this.expected = -1;
			}
			case "dashed-4mb" -> {
				boundary = "a".repeat(4000);
				bytes = ("a".repeat(63) + "-").repeat(64 * 1024).getBytes(StandardCharsets.US_ASCII);
				this.expected = -1;
			}
			case "periodic-1mb" -> {
				boundary = "ab".repeat(2000);
				bytes = "ab".repeat(512 * 1024).getBytes(StandardCharsets.US_ASCII);
				this.expected = -1;
			}
			default -> throw new IllegalArgumentException("Unknown body " + this.body);
		}
		this.buffers = BodyBuffers.of(this.factory, bytes, bytes.length / BUFFER_SIZE);
		HttpHeaders headers = new HttpHeaders();
		headers.setContentType(MediaType.parseMediaType("multipart/form-data; boundary=" + boundary));
		this.request = new BenchmarkServerRequest(URI.create("http://localhost/upload"), headers);
	}

	private static byte[] upload() {
		byte[] file = new byte[4 * 1024 * 1024];
		new Random(20261202).nextBytes(file);
		ByteArrayOutputStream multipart = new ByteArrayOutputStream();
		multipart.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\";"
				+ " filename=\"data.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n")
			.getBytes(StandardCharsets.US_ASCII));
		multipart.writeBytes(file);
		multipart.writeBytes(("\r\n--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.US_ASCII));
		return multipart.toByteArray();
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
		Long read = reader.read(PART_EVENT, this.request.withBody(this.buffers.flux()), NO_HINTS)
			.reduce(0L, (size, event) -> {
				long total = size + event.content().readableByteCount();
				DataBufferUtils.release(event.content());
				return total;
			})
			.onErrorResume(DecodingException.class, (ex) -> Mono.just(-1L))
			.block();
		if (read == null || read != this.expected) {
			throw new IllegalStateException("Read " + read + " bytes");
		}
		return read;
	}

	@TearDown
	public void tearDown() {
		this.buffers.release();
	}

}
