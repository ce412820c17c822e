package io.fastpath.benchmarks;

import java.util.concurrent.TimeUnit;

import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the meters add to one read, measured alone: a read tells its listener once or
 * twice (the path, then a rejection if any), so this is the meters' whole cost per body,
 * to set against the time of the fastest reads in the suite. The suite's {@code meters=on}
 * rows measure the same cost inside a read, where it is smaller than the noise of two
 * shared cores; alone, it is not. Not part of the suite's table; run it with
 * {@code java -cp benchmarks/target/benchmarks.jar org.openjdk.jmh.Main ReadListener}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 8, time = 500, timeUnit = TimeUnit.MILLISECONDS)
@Fork(2)
public class ReadListenerBenchmark {

	private final ReadListener off = BenchmarkMeters.listener("off");

	private final ReadListener on = BenchmarkMeters.listener("on");

	@Benchmark
	public void metersOff() {
		this.off.onRead(ReadEvent.JSON_FLUX);
	}

	@Benchmark
	public void metersOn() {
		this.on.onRead(ReadEvent.JSON_FLUX);
	}

}
