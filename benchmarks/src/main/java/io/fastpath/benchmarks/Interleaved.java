package io.fastpath.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Time and bytes of several sides compared in one JVM, the sides alternating in short
 * blocks: on two shared cores whose speed drifts by 10% and more over seconds, a ratio
 * taken between two JMH runs measures the drift as much as the code. Here every round runs
 * one block of each side, about {@code --block-ms} long, back to back, in an order
 * shuffled for each round (seeded; the seed is in the report); each round gives one ratio
 * per side against the first side (the baseline), and the table gives the median of those
 * per-round ratios with their quartiles. Drift slower than a round cancels out of every
 * ratio. The order is shuffled, not rotated: what a side leaves behind (the garbage the
 * next collection frees, caches it evicted) is paid by the side after it, and a rotation
 * keeps the same side after it in every round: a side right after one that allocates
 * several times its bytes is charged for that side's garbage in every round of a rotated
 * row (docs/benchmarks.md, "Method").
 * <p>A side is a {@code @Benchmark} method of a JMH {@code @State} class together with the
 * values of its {@code @Param} fields: {@code request=records:stock}. Sides with the same
 * parameters share one state object, set up once ({@code @Setup}, {@code @TearDown}).
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.fastpath.benchmarks.Interleaved HttpRequestBenchmark \
 *     request=records:stock request=records:stockBlackbird request=records:fastpath
 * </pre>
 * Bytes per operation are all the bytes the JVM's threads allocated during a block (the
 * servers' event loops and the client), divided by its operations, less what reading the
 * counters allocates; with a client that allocates next to nothing they are the server's.
 * CPU per operation is the CPU time of the JVM's threads during a block (the collector's
 * excluded): where the time also counts waiting (for the other side of the loopback, for
 * a disk), it counts only work. It does not cancel other work on shared cores (measured
 * under load it grew as the time did), so it is judged as the time is, by its ratios.
 * Options: {@code --rounds} (default 60), {@code --block-ms} (2), {@code --warmup-s}
 * (total warm-up, shared by the sides, default 8), {@code --seed} (of the order; default
 * the clock), {@code --report FILE} to append the
 * table to a file, {@code --title TEXT} for its heading.
 */
public final class Interleaved {

	private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory
		.getThreadMXBean();

	private Interleaved() {
	}

	public static void main(String[] args) throws Exception {
		Options options = Options.parse(args);
		Class<?> type = Class.forName(Interleaved.class.getPackageName() + "." + options.benchmark());
		Map<String, Object> states = new LinkedHashMap<>();
		List<Side> sides = new ArrayList<>();
		for (String spec : options.sides) {
			int colon = spec.lastIndexOf(':');
			if (colon < 0) {
				throw new IllegalArgumentException("A side is params:method, got " + spec);
			}
			String params = spec.substring(0, colon);
			Method method = type.getMethod(spec.substring(colon + 1));
			if (!method.isAnnotationPresent(Benchmark.class)) {
				throw new IllegalArgumentException(method + " is not a @Benchmark method");
			}
			Object state = states.get(params);
			if (state == null) {
				state = newState(type, params);
				states.put(params, state);
			}
			sides.add(new Side(spec, state, method));
		}
		try {
			run(sides, options);
		}
		finally {
			for (Object state : states.values()) {
				invokeAnnotated(state, TearDown.class);
			}
		}
	}

	private static void run(List<Side> sides, Options options) throws Exception {
		long blockNanos = options.blockMillis * 1_000_000L;
		// Warm-up: every side in turn, in blocks, until the time is spent; the last blocks
		// tell how many operations make a block of each side.
		long warmupEnd = System.nanoTime() + options.warmupSeconds * 1_000_000_000L;
		while (System.nanoTime() < warmupEnd) {
			for (Side side : sides) {
				side.calibrate(blockNanos);
			}
		}
		long counterCost = counterCost();
		int rounds = options.rounds;
		double[][] nanos = new double[sides.size()][rounds];
		double[][] bytes = new double[sides.size()][rounds];
		double[][] cpu = new double[sides.size()][rounds];
		Random random = new Random(options.seed);
		List<Integer> order = new ArrayList<>();
		for (int i = 0; i < sides.size(); i++) {
			order.add(i);
		}
		for (int round = 0; round < rounds; round++) {
			Collections.shuffle(order, random);
			for (int i : order) {
				Side side = sides.get(i);
				// CPU read outside the bytes, so that its arrays are not counted as allocated
				long cpuBefore = cpuNanos();
				long allocatedBefore = allocatedBytes();
				long start = System.nanoTime();
				side.invoke(side.operationsPerBlock);
				long elapsed = System.nanoTime() - start;
				long allocated = allocatedBytes() - allocatedBefore - counterCost;
				long cpuUsed = cpuNanos() - cpuBefore;
				nanos[i][round] = (double) elapsed / side.operationsPerBlock;
				cpu[i][round] = (double) cpuUsed / side.operationsPerBlock;
				bytes[i][round] = Math.max(0, (double) allocated / side.operationsPerBlock);
			}
		}
		String table = table(sides, nanos, bytes, cpu, options);
		System.out.println();
		System.out.println(table);
		if (options.report != null) {
			Files.writeString(Path.of(options.report), table + "\n", java.nio.file.StandardOpenOption.CREATE,
					java.nio.file.StandardOpenOption.APPEND);
		}
	}

	private static String table(List<Side> sides, double[][] nanos, double[][] bytes, double[][] cpu,
			Options options) {
		StringBuilder table = new StringBuilder();
		table.append("##### ").append(options.title != null ? options.title : options.benchmark()).append(" (")
			.append(options.rounds).append(" rounds of ").append(options.blockMillis)
			.append(" ms blocks in an order shuffled each round, seed ").append(options.seed)
			.append("; ratios against the first row: median [quartiles] of per-round ratios)\n\n");
		table.append("| Side | µs/op | B/op | Time ratio | Bytes ratio | CPU µs/op | CPU ratio |\n"
				+ "|---|---:|---:|---:|---:|---:|---:|\n");
		for (int i = 0; i < sides.size(); i++) {
			double[] timeRatios = ratios(nanos[i], nanos[0]);
			double[] byteRatios = ratios(bytes[i], bytes[0]);
			double[] cpuRatios = ratios(cpu[i], cpu[0]);
			table.append(String.format("| %s | %.1f | %,.0f | %s | %s | %.1f | %s |%n", sides.get(i).name,
					median(nanos[i]) / 1000, median(bytes[i]), band(timeRatios), band(byteRatios),
					median(cpu[i]) / 1000, band(cpuRatios)));
		}
		return table.toString();
	}

	private static double[] ratios(double[] values, double[] baseline) {
		double[] ratios = new double[values.length];
		for (int round = 0; round < values.length; round++) {
			ratios[round] = values[round] / baseline[round];
		}
		return ratios;
	}

	private static String band(double[] ratios) {
		return String.format("%.2fx [%.2f-%.2f]", quantile(ratios, 0.5), quantile(ratios, 0.25),
				quantile(ratios, 0.75));
	}

	private static double median(double[] values) {
		return quantile(values, 0.5);
	}

	/** The quantile, interpolated between the two nearest ranks. */
	private static double quantile(double[] values, double q) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		double rank = q * (sorted.length - 1);
		int low = (int) Math.floor(rank);
		int high = (int) Math.ceil(rank);
		return sorted[low] + (sorted[high] - sorted[low]) * (rank - low);
	}

	/** Bytes allocated so far by the live threads of this JVM. */
	private static long allocatedBytes() {
		long total = 0;
		for (long allocated : THREADS.getThreadAllocatedBytes(THREADS.getAllThreadIds())) {
			if (allocated > 0) {
				total += allocated;
			}
		}
		return total;
	}

	/**
	 * CPU time used so far by the live threads of this JVM (the servers' event loops and
	 * the client; not the collector's threads, which are not Java threads): unlike the
	 * time of a block, other processes taking the cores leave it nearly unchanged.
	 */
	private static long cpuNanos() {
		long total = 0;
		for (long used : THREADS.getThreadCpuTime(THREADS.getAllThreadIds())) {
			if (used > 0) {
				total += used;
			}
		}
		return total;
	}

	/** What reading the counters twice allocates (the id and result arrays), least of several. */
	private static long counterCost() {
		long least = Long.MAX_VALUE;
		for (int i = 0; i < 50; i++) {
			long before = allocatedBytes();
			least = Math.min(least, allocatedBytes() - before);
		}
		return least;
	}

	private static Object newState(Class<?> type, String params) throws Exception {
		Object state = type.getConstructor().newInstance();
		if (!params.isEmpty()) {
			for (String assignment : params.split(",")) {
				int equals = assignment.indexOf('=');
				Field field = type.getField(assignment.substring(0, equals));
				field.set(state, convert(assignment.substring(equals + 1), field.getType()));
			}
		}
		invokeAnnotated(state, Setup.class);
		return state;
	}

	private static Object convert(String value, Class<?> type) {
		if (type == int.class) {
			return Integer.parseInt(value);
		}
		if (type == long.class) {
			return Long.parseLong(value);
		}
		if (type == boolean.class) {
			return Boolean.parseBoolean(value);
		}
		return value;
	}

	private static void invokeAnnotated(Object state, Class<? extends java.lang.annotation.Annotation> annotation)
			throws Exception {
		for (Method method : state.getClass().getMethods()) {
			if (method.isAnnotationPresent(annotation) && method.getParameterCount() == 0) {
				method.invoke(state);
			}
		}
	}

	/** One side: a benchmark method on its state, and how many calls make a block. */
	private static final class Side {

		final String name;

		final Object state;

		final Method method;

		int operationsPerBlock = 1;

		Side(String name, Object state, Method method) {
			this.name = name;
			this.state = state;
			this.method = method;
		}

		void invoke(int times) throws IOException {
			try {
				for (int i = 0; i < times; i++) {
					this.method.invoke(this.state);
				}
			}
			catch (IllegalAccessException ex) {
				throw new IllegalStateException(ex);
			}
			catch (InvocationTargetException ex) {
				throw new IOException(this.name + " failed", ex.getCause());
			}
		}

		/** Run one block and size the next from it. */
		void calibrate(long blockNanos) throws IOException {
			long start = System.nanoTime();
			invoke(this.operationsPerBlock);
			long perOperation = Math.max(1, (System.nanoTime() - start) / this.operationsPerBlock);
			this.operationsPerBlock = (int) Math.max(1, Math.min(1_000_000, blockNanos / perOperation));
		}

	}

	private static final class Options {

		@Nullable String benchmark;

		final List<String> sides = new ArrayList<>();

		int rounds = 60;

		int blockMillis = 2;

		int warmupSeconds = 8;

		long seed = System.nanoTime();

		@Nullable String report;

		@Nullable String title;

		String benchmark() {
			if (this.benchmark == null) {
				throw new IllegalStateException("No benchmark class");
			}
			return this.benchmark;
		}

		static Options parse(String[] args) {
			Options options = new Options();
			for (int i = 0; i < args.length; i++) {
				switch (args[i]) {
					case "--rounds" -> options.rounds = Integer.parseInt(args[++i]);
					case "--block-ms" -> options.blockMillis = Integer.parseInt(args[++i]);
					case "--warmup-s" -> options.warmupSeconds = Integer.parseInt(args[++i]);
					case "--seed" -> options.seed = Long.parseLong(args[++i]);
					case "--report" -> options.report = args[++i];
					case "--title" -> options.title = args[++i];
					default -> {
						if (options.benchmark == null) {
							options.benchmark = args[i];
						}
						else {
							options.sides.add(args[i]);
						}
					}
				}
			}
			if (options.benchmark == null || options.sides.size() < 2) {
				throw new IllegalArgumentException(
						"Usage: Interleaved BenchmarkClass params:method params:method ... [--rounds N]"
								+ " [--block-ms N] [--warmup-s N] [--seed N] [--report FILE] [--title TEXT]");
			}
			return options;
		}

	}

}
