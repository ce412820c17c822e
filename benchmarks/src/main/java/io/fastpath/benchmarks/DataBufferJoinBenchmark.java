package io.fastpath.benchmarks;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.fastpath.buffer.DataBufferAggregator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.publisher.Flux;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.PooledDataBuffer;

/**
 * Joining a body: stock {@code DataBufferUtils.join} against {@code DataBufferAggregator}.
 * The input buffers are made once and retained before each join, so the allocation
 * reported is the join's own, beyond the input buffers.
 */
@State(Scope.Thread)
@Warmup(iterations = 4, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 8, time = 500, timeUnit = TimeUnit.MILLISECONDS)
public class DataBufferJoinBenchmark {

	@Param({ BufferFactories.HEAP, BufferFactories.NETTY_DIRECT })
	public String factory;

	@Param({ "1", "5" })
	public int buffers;

	@Param("4096")
	public int bufferSize;

	private DataBuffer[] body;

	private final ValueSink<DataBuffer> sink = new ValueSink<>();

	@Setup
	public void setUp() {
		DataBufferFactory bufferFactory = BufferFactories.named(this.factory);
		this.body = new DataBuffer[this.buffers];
		for (int i = 0; i < this.buffers; i++) {
			byte[] bytes = new byte[this.bufferSize];
			ThreadLocalRandom.current().nextBytes(bytes);
			this.body[i] = bufferFactory.allocateBuffer(this.bufferSize).write(bytes);
		}
	}

	@TearDown
	public void tearDown() {
		for (DataBuffer buffer : this.body) {
			DataBufferUtils.release(buffer);
		}
	}

	@Benchmark
	public int stock() {
		DataBufferUtils.join(body(), -1).subscribe(this.sink);
		return consume(this.sink.take());
	}

	@Benchmark
	public int fastpath() {
		DataBufferAggregator.aggregate(body(), -1, (long) this.buffers * this.bufferSize).subscribe(this.sink);
		return consume(this.sink.take());
	}

	private Flux<DataBuffer> body() {
		for (DataBuffer buffer : this.body) {
			if (buffer instanceof PooledDataBuffer pooled) {
				pooled.retain();
			}
		}
		return (this.buffers == 1) ? Flux.just(this.body[0]) : Flux.fromArray(this.body);
	}

	private static int consume(DataBuffer joined) {
		int readable = joined.readableByteCount();
		DataBufferUtils.release(joined);
		return readable;
	}

}
