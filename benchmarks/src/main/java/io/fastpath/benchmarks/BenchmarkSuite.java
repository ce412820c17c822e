package io.fastpath.benchmarks;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs the benchmarks, each with a {@code stock} and a {@code fastpath} method, with the
 * GC profiler, and prints a markdown table of both side by side: throughput with its
 * error, the Fastpath/stock ratio, and bytes allocated per operation. Benchmarks that
 * also have a {@code jackson} method (plain Jackson, as a reference) fill three more
 * columns: its throughput, its bytes per operation and the Fastpath/Jackson ratio; those
 * with a {@code stockBlackbird} method (stock with Blackbird on its mapper, stock as a
 * user could tune it in one step) fill three more the same way.
 * <p>The methods of one parameter combination run back to back, one combination after
 * the other: JMH alone would run every combination of one method before the next method,
 * minutes apart, and on a shared machine whose speed drifts by 10% over minutes that
 * drift would enter the ratios, enough to turn a row from slower than stock to faster
 * (docs/benchmarks.md, "Method").
 * <p>Arguments are JMH's own (for example a benchmark regex, or {@code -f 2}). Each
 * benchmark class declares the iterations it needs ({@code @Warmup}, {@code @Measurement}:
 * eight half-second measurements, because the 99.9% error is a Student t quantile times
 * the spread, and that quantile alone is 12.9 with four samples, 5.4 with eight); with
 * one fork, a full run of every benchmark takes about 20 minutes on two cores
 * ({@code report.sh} runs a few rows with three forks and fewer iterations instead).
 * The table is also written to the file named by {@code -Dreport=...}, if set; with
 * {@code -Drows=...}, each method's measured throughputs and bytes per operation are
 * appended to that file as tab-separated lines, for {@code report.sh} to compare runs.
 */
public final class BenchmarkSuite {

	/**
	 * The benchmark classes, in the order they run: a new one runs once it is listed here.
	 */
	private static final List<Class<?>> BENCHMARKS = List.of(HttpRequestBenchmark.class, DataBufferJoinBenchmark.class,
			FormReadBenchmark.class, JsonArrayDecodeBenchmark.class, JsonEncodeBenchmark.class,
			MultipartFormReadBenchmark.class, WebClientBenchmark.class, WholeBodyDecodeBenchmark.class);

	/**
	 * Classes that run only when named: whole requests ({@code HttpRequestBenchmark}) are
	 * measured by {@code interleaved.sh}, time and bytes of every side in one JVM
	 * ({@link Interleaved}); any of its rows still runs under JMH by name
	 * ({@code run.sh HttpRequest -p request=records}).
	 */
	private static final Set<Class<?>> BY_NAME_ONLY = Set.of(HttpRequestBenchmark.class);

	private static final String ALL = "io\\.fastpath\\.benchmarks\\..*";

	private BenchmarkSuite() {
	}

	public static void main(String[] args) throws RunnerException, IOException {
		CommandLineOptions commandLine;
		try {
			commandLine = new CommandLineOptions(args);
		}
		catch (org.openjdk.jmh.runner.options.CommandLineOptionException ex) {
			throw new IllegalArgumentException(ex.getMessage(), ex);
		}
		List<String> includes = commandLine.getIncludes().isEmpty() ? List.of(ALL) : commandLine.getIncludes();
		List<RunResult> results = new ArrayList<>();
		for (Class<?> benchmark : BENCHMARKS) {
			if (commandLine.getIncludes().isEmpty() && BY_NAME_ONLY.contains(benchmark)) {
				continue;
			}
			if (!selected(benchmark, includes, commandLine.getExcludes())) {
				continue;
			}
			for (Map<String, String> combination : combinations(benchmark, commandLine)) {
				ChainedOptionsBuilder options = new OptionsBuilder().parent(commandLine)
					.addProfiler("gc")
					.shouldFailOnError(true)
					// Included by the arguments (or by default), and of this class only:
					// JMH adds includes to its parent's, so the class is chosen by exclusion.
					.exclude("^(?!" + Pattern.quote(benchmark.getName() + ".") + ")");
				if (commandLine.getIncludes().isEmpty()) {
					options.include(ALL);
				}
				if (!commandLine.getForkCount().hasValue()) {
					options.forks(1);
				}
				combination.forEach(options::param);
				results.addAll(new Runner(options.build()).run());
			}
		}
		String table = table(results);
		System.out.println();
		System.out.println(table);
		String report = System.getProperty("report");
		if (report != null) {
			Path path = Path.of(report);
			if (path.getParent() != null) {
				Files.createDirectories(path.getParent());
			}
			Files.writeString(path, table);
		}
		String rows = System.getProperty("rows");
		if (rows != null) {
			Files.writeString(Path.of(rows), rows(results), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
		}
	}

	/**
	 * One tab-separated line per method and parameter combination: class, parameters,
	 * method, the throughput of each measured iteration of every fork (comma-separated),
	 * and its bytes per operation. {@code report.sh} pools the lines of several runs of
	 * one row (a fork each, at different times) before it takes their quartiles.
	 */
	static String rows(Collection<RunResult> results) {
		StringBuilder rows = new StringBuilder();
		for (RunResult result : results) {
			String benchmark = result.getParams().getBenchmark();
			int lastDot = benchmark.lastIndexOf('.');
			List<String> scores = new ArrayList<>();
			for (BenchmarkResult fork : result.getBenchmarkResults()) {
				for (IterationResult iteration : fork.getIterationResults()) {
					scores.add(decimal(iteration.getPrimaryResult().getScore()));
				}
			}
			rows.append(String.join("\t", benchmark.substring(benchmark.lastIndexOf('.', lastDot - 1) + 1, lastDot),
					params(result), benchmark.substring(lastDot + 1), String.join(",", scores),
					allocation(result).replace(",", "")))
				.append('\n');
		}
		return rows.toString();
	}

	/** A number as a script reads it, whatever the default locale. */
	private static String decimal(double value) {
		return String.format(Locale.ROOT, "%.1f", value);
	}

	/** Whether any benchmark method of the class is included and not excluded. */
	private static boolean selected(Class<?> benchmark, List<String> includes, List<String> excludes) {
		for (Method method : benchmark.getMethods()) {
			if (method.isAnnotationPresent(Benchmark.class)) {
				String name = benchmark.getName() + "." + method.getName();
				if (matchesAny(includes, name) && !matchesAny(excludes, name)) {
					return true;
				}
			}
		}
		return false;
	}

	private static boolean matchesAny(List<String> regexes, String name) {
		return regexes.stream().anyMatch((regex) -> Pattern.compile(regex).matcher(name).find());
	}

	/**
	 * Every combination of the class's parameters: the values given with {@code -p}, or
	 * those of its {@code @Param} annotations. A class whose full cross product would
	 * measure the same thing many times, or overrun the suite's time, declares
	 * {@code static boolean inSuite(Map<String, String>)}, which chooses among the
	 * combinations of its {@code @Param} values; values given with {@code -p} all run.
	 */
	private static List<Map<String, String>> combinations(Class<?> benchmark, CommandLineOptions commandLine) {
		List<Map<String, String>> combinations = new ArrayList<>();
		combinations.add(new TreeMap<>());
		boolean chosen = false;
		for (Field field : benchmark.getDeclaredFields()) {
			Param param = field.getAnnotation(Param.class);
			if (param == null) {
				continue;
			}
			chosen |= commandLine.getParameter(field.getName()).hasValue();
			Collection<String> values = commandLine.getParameter(field.getName()).orElse(List.of(param.value()));
			List<Map<String, String>> extended = new ArrayList<>();
			for (Map<String, String> combination : combinations) {
				for (String value : values) {
					Map<String, String> next = new TreeMap<>(combination);
					next.put(field.getName(), value);
					extended.add(next);
				}
			}
			combinations = extended;
		}
		Method inSuite = inSuite(benchmark);
		if (inSuite == null || chosen) {
			return combinations;
		}
		List<Map<String, String>> suite = new ArrayList<>();
		for (Map<String, String> combination : combinations) {
			try {
				if ((boolean) inSuite.invoke(null, combination)) {
					suite.add(combination);
				}
			}
			catch (ReflectiveOperationException ex) {
				throw new IllegalStateException("Cannot ask " + benchmark.getName() + " for its suite", ex);
			}
		}
		return suite;
	}

	private static @Nullable Method inSuite(Class<?> benchmark) {
		try {
			Method method = benchmark.getDeclaredMethod("inSuite", Map.class);
			method.setAccessible(true);
			return method;
		}
		catch (NoSuchMethodException ex) {
			return null;
		}
	}

	static String table(Collection<RunResult> results) {
		Map<String, Map<String, RunResult>> cases = new TreeMap<>();
		for (RunResult result : results) {
			String benchmark = result.getParams().getBenchmark();
			int lastDot = benchmark.lastIndexOf('.');
			String method = benchmark.substring(lastDot + 1);
			String name = benchmark.substring(benchmark.lastIndexOf('.', lastDot - 1) + 1, lastDot);
			cases.computeIfAbsent(name + " | " + params(result), (key) -> new LinkedHashMap<>()).put(method, result);
		}
		StringBuilder table = new StringBuilder();
		row(table, "Benchmark", "Params", "Stock ops/s", "Fastpath ops/s", "Fastpath/stock", "Stock B/op",
				"Fastpath B/op", "Stock+Blackbird ops/s", "Stock+Blackbird B/op", "Fastpath/stock+Blackbird",
				"Jackson ops/s", "Jackson B/op", "Fastpath/Jackson");
		table.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		cases.forEach((key, methods) -> {
			RunResult stock = methods.get("stock");
			RunResult fastpath = methods.get("fastpath");
			if (stock == null || fastpath == null) {
				return;
			}
			RunResult jackson = methods.get("jackson");
			RunResult stockBlackbird = methods.get("stockBlackbird");
			row(table, key, throughput(stock), throughput(fastpath), ratio(fastpath, stock), allocation(stock),
					allocation(fastpath), cell(stockBlackbird, BenchmarkSuite::throughput),
					cell(stockBlackbird, BenchmarkSuite::allocation),
					cell(stockBlackbird, (reference) -> ratio(fastpath, reference)), cell(jackson, BenchmarkSuite::throughput),
					cell(jackson, BenchmarkSuite::allocation), cell(jackson, (reference) -> ratio(fastpath, reference)));
		});
		return table.toString();
	}

	private static void row(StringBuilder table, String... cells) {
		table.append("| ").append(String.join(" | ", cells)).append(" |\n");
	}

	/**
	 * Format a cell from a method's result, or mark it absent when the benchmark has no
	 * such method (only some have a plain {@code jackson} or a {@code stockBlackbird}
	 * reference).
	 */
	private static String cell(@Nullable RunResult result, Function<RunResult, String> format) {
		return (result != null) ? format.apply(result) : "-";
	}

	private static String params(RunResult result) {
		StringBuilder params = new StringBuilder();
		for (String key : result.getParams().getParamsKeys()) {
			if (params.length() > 0) {
				params.append(", ");
			}
			params.append(key).append('=').append(result.getParams().getParam(key));
		}
		return params.toString();
	}

	private static String ratio(RunResult result, RunResult reference) {
		return String.format("%.2fx", result.getPrimaryResult().getScore() / reference.getPrimaryResult().getScore());
	}

	private static String throughput(RunResult result) {
		Result<?> primary = result.getPrimaryResult();
		return String.format("%,.0f ± %,.0f", primary.getScore(), primary.getScoreError());
	}

	private static String allocation(RunResult result) {
		Result<?> norm = result.getSecondaryResults().get("gc.alloc.rate.norm");
		if (norm == null) {
			norm = result.getSecondaryResults().get("·gc.alloc.rate.norm");
		}
		return (norm != null) ? String.format("%,.0f", norm.getScore()) : "n/a";
	}

}
