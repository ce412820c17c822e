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
import java.util.function.Function;

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
 * (total warm-up, an equal share of it for each side, counted in its own running time,
 * default 8), {@code --seed} (of the order; default
 * the clock), {@code --report FILE} to append the
 * table to a file, {@code --title TEXT} for its heading, {@code --raw FILE} to write the
 * rounds themselves (every side's time, bytes and CPU per operation in every round).
 * <p>One JVM is one fork: what the JIT compiles, and where, differs from one JVM to the next
 * and moves a row's ratios by more than its quartiles, so a figure is taken over several.
 * {@code Interleaved --pool FILE FILE ... [--title TEXT] [--report FILE]} reads the rounds
 * of several forks of one row ({@code --raw}) and prints one table: each fork's per-round
 * ratios against its own baseline, pooled, then their median and quartiles; the per-operation
 * columns the median of every fork's rounds pooled; and each fork's median time ratio.
 */
public final class Interleaved {

	private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory
		.getThreadMXBean();

	private Interleaved() {
	}

	public static void main(String[] args) throws Exception {
		Options options = Options.parse(args);
		if (options.pool) {
			List<Fork> forks = new ArrayList<>();
			for (String file : options.files) {
				forks.add(Fork.read(Path.of(file)));
			}
			print(forks, options);
			return;
		}
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
		// Warm-up: the sides in turn, in blocks, each until it has run for its share of the
		// time; the last blocks tell how many operations make a block of each side. A share
		// each, not the time shared in turns: a side whose request takes ten times the
		// others' would take most of the warm-up, and the others' code would start the
		// rounds less compiled, reading slower than in a JVM of their own
		// (docs/benchmarks.md, "The JVM a row runs in").
		long share = options.warmupSeconds * 1_000_000_000L / sides.size();
		boolean warming = true;
		while (warming) {
			warming = false;
			for (Side side : sides) {
				if (side.warmedNanos < share) {
					side.calibrate(blockNanos);
					warming = true;
				}
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
		List<String> names = sides.stream().map((side) -> side.name).toList();
		Fork fork = new Fork(options.benchmark(), options.seed, options.blockMillis, names, nanos, bytes, cpu);
		if (options.raw != null) {
			fork.write(Path.of(options.raw));
		}
		print(List.of(fork), options);
	}

	/** The table of one row from its forks, printed and appended to the report if any. */
	private static void print(List<Fork> forks, Options options) throws IOException {
		String table = table(forks, (options.title != null) ? options.title : forks.get(0).benchmark());
		System.out.println();
		System.out.println(table);
		if (options.report != null) {
			Files.writeString(Path.of(options.report), table + "\n", java.nio.file.StandardOpenOption.CREATE,
					java.nio.file.StandardOpenOption.APPEND);
		}
	}

	/**
	 * The table of one row: every fork's rounds pooled. A ratio is taken within a round of
	 * one fork (a side against the baseline measured in the same round of the same JVM);
	 * the ratios of all forks are then pooled, so that their quartiles hold the spread
	 * between JVMs as well as within one, and their median is not one JVM's.
	 */
	static String table(List<Fork> forks, String title) {
		Fork first = forks.get(0);
		for (Fork fork : forks) {
			if (!fork.benchmark().equals(first.benchmark()) || !fork.sides().equals(first.sides())
					|| fork.rounds() != first.rounds()) {
				throw new IllegalArgumentException("Forks of one row have the same sides and rounds (each fork"
						+ " weighs the same in the pool): " + first.sides() + " x " + first.rounds() + " against "
						+ fork.sides() + " x " + fork.rounds());
			}
		}
		StringBuilder table = new StringBuilder();
		table.append("##### ").append(title).append(" (");
		if (forks.size() > 1) {
			table.append(forks.size()).append(" forks x ");
		}
		table.append(first.rounds()).append(" rounds of ").append(first.blockMillis())
			.append(" ms blocks in an order shuffled each round, ")
			.append(forks.size() > 1 ? "seeds " : "seed ")
			.append(String.join(", ", forks.stream().map((fork) -> Long.toString(fork.seed())).toList()))
			.append("; ratios against the first row: median [quartiles] of per-round ratios")
			.append(forks.size() > 1 ? ", every fork's pooled; per operation: the median of every fork's rounds"
					: "")
			.append(")\n\n");
		table.append("| Side | µs/op | B/op | Time ratio | Bytes ratio | CPU µs/op | CPU ratio |");
		table.append(forks.size() > 1 ? " Time ratio per fork |\n" : "\n");
		table.append("|---|---:|---:|---:|---:|---:|---:|").append(forks.size() > 1 ? "---:|\n" : "\n");
		for (int i = 0; i < first.sides().size(); i++) {
			table.append(String.format("| %s | %.1f | %,.0f | %s | %s | %.1f | %s |", first.sides().get(i),
					median(pooled(forks, Fork::nanos, i)) / 1000, median(pooled(forks, Fork::bytes, i)),
					band(pooledRatios(forks, Fork::nanos, i)), band(pooledRatios(forks, Fork::bytes, i)),
					median(pooled(forks, Fork::cpu, i)) / 1000, band(pooledRatios(forks, Fork::cpu, i))));
			if (forks.size() > 1) {
				List<String> medians = new ArrayList<>();
				for (Fork fork : forks) {
					medians.add(String.format("%.2fx", median(pooledRatios(List.of(fork), Fork::nanos, i))));
				}
				table.append(' ').append(String.join(", ", medians)).append(" |");
			}
			table.append('\n');
		}
		return table.toString();
	}

	/** One side's values per operation, every fork's rounds one after the other. */
	static double[] pooled(List<Fork> forks, Function<Fork, double[][]> measure, int side) {
		return concatenate(forks, (fork) -> measure.apply(fork)[side]);
	}

	/**
	 * One side's per-round ratios against the baseline (the first side), each taken within a
	 * round of one fork, every fork's one after the other.
	 */
	static double[] pooledRatios(List<Fork> forks, Function<Fork, double[][]> measure, int side) {
		return concatenate(forks, (fork) -> ratios(measure.apply(fork)[side], measure.apply(fork)[0]));
	}

	private static double[] concatenate(List<Fork> forks, Function<Fork, double[]> values) {
		double[] all = new double[0];
		for (Fork fork : forks) {
			double[] more = values.apply(fork);
			int from = all.length;
			all = Arrays.copyOf(all, from + more.length);
			System.arraycopy(more, 0, all, from, more.length);
		}
		return all;
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

	static double median(double[] values) {
		return quantile(values, 0.5);
	}

	/** The quantile, interpolated between the two nearest ranks. */
	static double quantile(double[] values, double q) {
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

		/** The time this side has run in the warm-up. */
		long warmedNanos;

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
			long elapsed = System.nanoTime() - start;
			this.warmedNanos += elapsed;
			long perOperation = Math.max(1, elapsed / this.operationsPerBlock);
			this.operationsPerBlock = (int) Math.max(1, Math.min(1_000_000, blockNanos / perOperation));
		}

	}

	/**
	 * The rounds of one fork (one JVM) of a row: per side, the first the baseline, and per
	 * round, the time, bytes and CPU time of one operation; and what ran them (the benchmark
	 * class, the seed of the order, the length of a block).
	 */
	record Fork(String benchmark, long seed, int blockMillis, List<String> sides, double[][] nanos, double[][] bytes, double[][] cpu) {

		private static final String HEADER = "side\tround\tnanos\tbytes\tcpuNanos";

		int rounds() {
			return this.nanos[0].length;
		}

		/** Writes the rounds as tab-separated lines, after the seed and the block's length. */
		void write(Path file) throws IOException {
			List<String> lines = new ArrayList<>();
			lines.add("benchmark\t" + this.benchmark);
			lines.add("seed\t" + this.seed);
			lines.add("blockMillis\t" + this.blockMillis);
			lines.add(HEADER);
			for (int side = 0; side < this.sides.size(); side++) {
				for (int round = 0; round < rounds(); round++) {
					lines.add(this.sides.get(side) + "\t" + round + "\t" + this.nanos[side][round] + "\t"
							+ this.bytes[side][round] + "\t" + this.cpu[side][round]);
				}
			}
			Files.write(file, lines);
		}

		/** Reads what {@link #write} wrote. */
		static Fork read(Path file) throws IOException {
			List<String> lines = Files.readAllLines(file);
			if (lines.size() < 5 || !lines.get(3).equals(HEADER)) {
				throw new IllegalArgumentException(file + " is not the rounds of a fork (--raw)");
			}
			String benchmark = lines.get(0).split("\t")[1];
			long seed = Long.parseLong(lines.get(1).split("\t")[1]);
			int blockMillis = Integer.parseInt(lines.get(2).split("\t")[1]);
			Map<String, List<double[]>> rounds = new LinkedHashMap<>();
			for (String line : lines.subList(4, lines.size())) {
				String[] cells = line.split("\t");
				rounds.computeIfAbsent(cells[0], (side) -> new ArrayList<>())
					.add(new double[] { Double.parseDouble(cells[2]), Double.parseDouble(cells[3]),
							Double.parseDouble(cells[4]) });
			}
			List<String> sides = new ArrayList<>(rounds.keySet());
			List<List<double[]>> values = new ArrayList<>(rounds.values());
			int count = values.get(0).size();
			double[][] nanos = new double[sides.size()][count];
			double[][] bytes = new double[sides.size()][count];
			double[][] cpu = new double[sides.size()][count];
			for (int i = 0; i < sides.size(); i++) {
				List<double[]> side = values.get(i);
				if (side.size() != count) {
					throw new IllegalArgumentException(file + ": " + sides.get(i) + " has " + side.size()
							+ " rounds, " + sides.get(0) + " " + count);
				}
				for (int round = 0; round < count; round++) {
					nanos[i][round] = side.get(round)[0];
					bytes[i][round] = side.get(round)[1];
					cpu[i][round] = side.get(round)[2];
				}
			}
			return new Fork(benchmark, seed, blockMillis, sides, nanos, bytes, cpu);
		}

	}

	private static final class Options {

		@Nullable String benchmark;

		final List<String> sides = new ArrayList<>();

		/** With {@code --pool}: the files of the forks' rounds. */
		final List<String> files = new ArrayList<>();

		int rounds = 60;

		int blockMillis = 2;

		int warmupSeconds = 8;

		long seed = System.nanoTime();

		@Nullable String report;

		@Nullable String title;

		@Nullable String raw;

		/** Whether the arguments are forks' rounds to pool ({@code --pool}), not sides to run. */
		boolean pool;

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
					case "--raw" -> options.raw = args[++i];
					case "--pool" -> options.pool = true;
					default -> {
						if (options.pool) {
							options.files.add(args[i]);
						}
						else if (options.benchmark == null) {
							options.benchmark = args[i];
						}
						else {
							options.sides.add(args[i]);
						}
					}
				}
			}
			if (options.pool ? options.files.isEmpty() : (options.benchmark == null || options.sides.size() < 2)) {
				throw new IllegalArgumentException(
						"Usage: Interleaved BenchmarkClass params:method params:method ... [--rounds N]"
								+ " [--block-ms N] [--warmup-s N] [--seed N] [--report FILE] [--title TEXT]"
								+ " [--raw FILE]\n   or: Interleaved --pool FILE ... [--report FILE] [--title TEXT]");
			}
			return options;
		}

	}

}
