package io.fastpath.benchmarks;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

import io.fastpath.benchmarks.HttpRequestBenchmark.FastpathWebFlux;
import io.fastpath.benchmarks.HttpRequestBenchmark.Server;
import io.fastpath.benchmarks.HttpRequestBenchmark.StockWebFlux;

/**
 * The time of {@code Flux} responses against the {@code byte[]} reference of the same
 * records, judged interleaved: both in one JVM, on the servers of
 * {@link HttpRequestBenchmark}, alternating blocks of about 2 ms of requests of each, so
 * that the noise of shared cores falls on both alike. Per round, the ratio of the mean
 * times of a request; printed: the median of the rounds' ratios and its quartiles.
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.fastpath.benchmarks.ResponseTimeRatios [rounds]
 * </pre>
 */
public final class ResponseTimeRatios {

	private static final long BLOCK_NANOS = 2_000_000;

	private static final int BLOCKS_PER_ROUND = 25;

	private ResponseTimeRatios() {
	}

	public static void main(String[] args) throws IOException {
		int rounds = (args.length > 0) ? Integer.parseInt(args[0]) : 25;
		Server stock = Server.start(StockWebFlux.class);
		Server fastpath = Server.start(FastpathWebFlux.class);
		try {
			List<String[]> rows = List.of(new String[] { "flux-json-1000", "/write/flux?count=1000", "application/json", "1000" },
					new String[] { "flux-json-10", "/write/flux?count=10", "application/json", "10" },
					new String[] { "flux-ndjson-1000", "/write/flux?count=1000", "application/x-ndjson", "1000" },
					new String[] { "flux-sse-1000", "/write/flux?count=1000", "text/event-stream", "1000" },
					new String[] { "list-1000", "/write/list?count=1000", "application/json", "1000" });
			System.out.println("| Response | Stock / byte[] (median, quartiles) | Fastpath / byte[] (median, quartiles) |");
			System.out.println("|---|---:|---:|");
			for (String[] row : rows) {
				byte[] flux = RawHttpClient.get(row[1], row[2]);
				byte[] reference = RawHttpClient.get("/write/bytes?count=" + row[3], "application/json");
				String stockRatio = ratios(stock.client(), flux, stock.client(), reference, rounds);
				String fastpathRatio = ratios(fastpath.client(), flux, fastpath.client(), reference, rounds);
				System.out.println("| " + row[0] + " | " + stockRatio + " | " + fastpathRatio + " |");
			}
		}
		finally {
			stock.stop();
			fastpath.stop();
		}
	}

	/** The time of the first request over the second's, interleaved. */
	private static String ratios(RawHttpClient client, byte[] request, RawHttpClient referenceClient,
			byte[] reference, int rounds) throws IOException {
		// Warm up both for about 2 s
		long warmEnd = System.nanoTime() + 2_000_000_000L;
		while (System.nanoTime() < warmEnd) {
			client.exchange(request);
			referenceClient.exchange(reference);
		}
		double[] ratios = new double[rounds];
		for (int round = 0; round < rounds; round++) {
			long[] measured = new long[2];
			long[] counts = new long[2];
			for (int block = 0; block < BLOCKS_PER_ROUND; block++) {
				block(client, request, measured, counts, 0);
				block(referenceClient, reference, measured, counts, 1);
			}
			ratios[round] = ((double) measured[0] / counts[0]) / ((double) measured[1] / counts[1]);
		}
		Arrays.sort(ratios);
		return String.format("%.2fx (%.2f-%.2f)", ratios[rounds / 2], ratios[rounds / 4], ratios[(3 * rounds) / 4]);
	}

	private static void block(RawHttpClient client, byte[] request, long[] measured, long[] counts, int side)
			throws IOException {
		long start = System.nanoTime();
		long now = start;
		long count = 0;
		while (now - start < BLOCK_NANOS || count == 0) {
			client.exchange(request);
			count++;
			now = System.nanoTime();
		}
		measured[side] += now - start;
		counts[side] += count;
	}

}
