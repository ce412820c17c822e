package io.fastpath.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs the benchmarks, each with a {@code stock} and a {@code fastpath} method, in one JMH
 * run with the GC profiler, and prints a markdown table of both side by side: throughput
 * with its error, the Fastpath/stock ratio, and bytes allocated per operation. Benchmarks
 * that also have a {@code jackson} method (plain Jackson, as a reference) fill three more
 * columns: its throughput, its bytes per operation and the Fastpath/Jackson ratio.
 * <p>Arguments are JMH's own (for example a benchmark regex, or {@code -f 2}). Each
 * benchmark class declares the iterations it needs ({@code @Warmup}, {@code @Measurement}:
 * eight half-second measurements, because the 99.9% error is a Student t quantile times
 * the spread, and that quantile alone is 12.9 with four samples, 5.4 with eight); with
 * one fork, a full run of every benchmark stays within about 16 minutes on two cores, so
 * that the whole suite with the server load stays within 20.
 * The table is also written to the file named by {@code -Dreport=...}, if set.
 */
public final class BenchmarkSuite {

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
		ChainedOptionsBuilder options = new OptionsBuilder().parent(commandLine)
			.addProfiler("gc")
			.shouldFailOnError(true);
		if (commandLine.getIncludes().isEmpty()) {
			options.include("io\\.fastpath\\.benchmarks\\..*");
		}
		if (commandLine.getForkCount().hasValue() == false) {
			options.forks(1);
		}
		Collection<RunResult> results = new Runner(options.build()).run();
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
				"Fastpath B/op", "Jackson ops/s", "Jackson B/op", "Fastpath/Jackson");
		table.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		cases.forEach((key, methods) -> {
			RunResult stock = methods.get("stock");
			RunResult fastpath = methods.get("fastpath");
			if (stock == null || fastpath == null) {
				return;
			}
			RunResult jackson = methods.get("jackson");
			row(table, key, throughput(stock), throughput(fastpath), ratio(fastpath, stock), allocation(stock),
					allocation(fastpath), cell(jackson, BenchmarkSuite::throughput),
					cell(jackson, BenchmarkSuite::allocation), cell(jackson, (reference) -> ratio(fastpath, reference)));
		});
		return table.toString();
	}

	private static void row(StringBuilder table, String... cells) {
		table.append("| ").append(String.join(" | ", cells)).append(" |\n");
	}

	/**
	 * Format a cell from a method's result, or mark it absent when the benchmark has no
	 * such method (only some have a plain {@code jackson} reference).
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
