package io.fastpath.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.fastpath.buffer.WholeBodyAggregation;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.publisher.Flux;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.StringDecoder;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.PooledDataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;

/**
 * A whole {@code String} body read from one buffer, as {@code @RequestBody String} and
 * {@code bodyToMono(String.class)} do: the stock reader against Fastpath's.
 */
@State(Scope.Thread)
@Warmup(iterations = 4, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 8, time = 500, timeUnit = TimeUnit.MILLISECONDS)
public class WholeBodyDecodeBenchmark {

	private static final ResolvableType STRING = ResolvableType.forClass(String.class);

	private static final Map<String, Object> NO_HINTS = Collections.emptyMap();

	@Param({ BufferFactories.HEAP, BufferFactories.NETTY_DIRECT })
	public String factory;

	@Param("4096")
	public int bodySize;

	/** Fastpath's meters: {@code off}, or {@code on} to measure their cost ({@link BenchmarkMeters}). */
	@Param("off")
	public String meters;

	private final DecoderHttpMessageReader<String> stockReader = new DecoderHttpMessageReader<>(
			StringDecoder.textPlainOnly());

	private HttpMessageReader<String> fastpathReader;

	private final HttpHeaders headers = new HttpHeaders();

	private DataBuffer body;

	private final ValueSink<String> sink = new ValueSink<>();

	@Setup
	@SuppressWarnings("unchecked")
	public void setUp() {
		// Built by the decorator, as the auto-configuration builds it.
		this.fastpathReader = (HttpMessageReader<String>) new WholeBodyAggregation(
				BenchmarkMeters.listener(this.meters))
			.decorate(List.of(new DecoderHttpMessageReader<>(StringDecoder.textPlainOnly())))
			.get(0);
		byte[] text = "a".repeat(this.bodySize).getBytes(StandardCharsets.UTF_8);
		this.body = BufferFactories.named(this.factory).allocateBuffer(text.length).write(text);
		this.headers.setContentType(MediaType.TEXT_PLAIN);
		this.headers.setContentLength(text.length);
	}

	@TearDown
	public void tearDown() {
		DataBufferUtils.release(this.body);
	}

	@Benchmark
	public int stock() {
		this.stockReader.readMono(STRING, message(), NO_HINTS).subscribe(this.sink);
		return this.sink.take().length();
	}

	@Benchmark
	public int fastpath() {
		this.fastpathReader.readMono(STRING, message(), NO_HINTS).subscribe(this.sink);
		return this.sink.take().length();
	}

	private ReactiveHttpInputMessage message() {
		if (this.body instanceof PooledDataBuffer pooled) {
			pooled.retain();
		}
		Flux<DataBuffer> buffers = Flux.just(this.body);
		return new ReactiveHttpInputMessage() {

			@Override
			public HttpHeaders getHeaders() {
				return WholeBodyDecodeBenchmark.this.headers;
			}

			@Override
			public Flux<DataBuffer> getBody() {
				return buffers;
			}

		};
	}

}
