package io.fastpath.multipart;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.scheduler.Schedulers;

import org.springframework.core.ResolvableType;
import org.springframework.core.SpringVersion;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.FilePart;
import org.springframework.http.codec.multipart.FormFieldPart;
import org.springframework.http.codec.multipart.Part;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.TestSeed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Differential tests of {@link SlicingPartReader} against Spring's
 * {@link DefaultPartHttpMessageReader} with the same settings on the same bodies
 * ({@link RandomMultipart}): random forms cut into random chunks (down to one byte, and
 * at every position of small bodies), valid and broken, with limits that send parts to
 * disk or fail them. Both must give the same parts in the same order (kind, name,
 * headers, filename, value or content bytes) or the same kind of error; every buffer is
 * released (heap and pooled Netty buffers) and no temporary file is left behind.
 * <p>The build uses a fixed seed; explore with {@code -Dfastpath.seed=random}, more cases
 * with {@code -Dfastpath.cases=<n>}, a longer fuzz with {@code -Dfastpath.fuzz.seconds=<s>}.
 */
class SlicingPartReaderDifferentialTests {

	/** The fuzz run's counts: at INFO, which a green build does not show (see logback-test.xml). */
	private static final Log logger = LogFactory.getLog(SlicingPartReaderDifferentialTests.class);

	private static final int CASES = Integer.getInteger("fastpath.cases", 200);

	private static final int FUZZ_SECONDS = Integer.getInteger("fastpath.fuzz.seconds", 4);

	private static final ResolvableType PART = ResolvableType.forClass(Part.class);

	private static final AtomicInteger mixedErrors = new AtomicInteger();

	@TempDir
	Path stockFiles;

	@TempDir
	Path fastpathFiles;

	@ParameterizedTest(name = "on {0} buffers")
	@ValueSource(strings = { "heap", "netty" })
	void readsRandomFormsLikeStock(String buffers) {
		assumeStockReadsRandomFormsAs7010();
		Random random = TestSeed.random("SlicingPartReader.random." + buffers);
		LeakTrackingDataBufferFactory factory = factory(buffers);
		for (int i = 0; i < CASES; i++) {
			Limits limits = Limits.random(random);
			RandomMultipart.Body body = RandomMultipart.valid(random, random.nextBoolean() ? 300 : 5000);
			boolean broken = random.nextInt(5) == 0;
			byte[] bytes = broken ? RandomMultipart.mutate(random, body) : body.body();
			assertReadAlike(factory, limits, body.boundary(), bytes, cuts(random, bytes.length), broken,
					"[seed=" + TestSeed.SEED + " case=" + i + " " + limits + "]");
		}
		factory.assertNoLeaks();
	}

	@ParameterizedTest(name = "on {0} buffers")
	@ValueSource(strings = { "heap", "netty" })
	void readsASmallFormCutAtEveryPositionLikeStock(String buffers) {
		LeakTrackingDataBufferFactory factory = factory(buffers);
		String boundary = "xYz";
		String body = "preamble --xY\r\n--xYz\r\n" + "Content-Disposition: form-data; name=\"a\"\r\n\r\n"
				+ "v\r\n--xY\r\n-\r\n--xYz\r\n" + "content-disposition:form-data; name=\"f\"; filename=\"f.txt\"\r\n"
				+ "Content-Type: text/plain\r\n\r\n" + "--xYz\r\r\n--xYz\r\n"
				+ "Content-Disposition: form-data; name=\"e\"\r\n\r\n" + "\r\n--xYz--\r\nepilogue";
		byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
		for (Limits limits : List.of(Limits.DEFAULT, new Limits(3, -1, -1, 10 * 1024))) {
			for (List<Integer> cuts : SlicingPartReaderDifferentialTests.cutsNear(bytes.length)) {
				assertReadAlike(factory, limits, boundary, bytes, cuts, false, "[cuts at " + cuts + " " + limits + "]");
			}
		}
		assertReadAlike(factory, Limits.DEFAULT, boundary, bytes,
				SlicingPartReaderDifferentialTests.cutsAtEveryByte(bytes.length), false, "[one byte per buffer]");
		factory.assertNoLeaks();
	}

	@ParameterizedTest(name = "on {0} buffers")
	@ValueSource(strings = { "heap", "netty" })
	void partHeadersAroundTheirLimitAreReadLikeStock(String buffers) {
		LeakTrackingDataBufferFactory factory = factory(buffers);
		String boundary = "b0und";
		// the headers, with transport padding after the boundary, are 91 bytes to the blank line's end
		String body = "--b0und \t \r\nContent-Disposition:  form-data; name=\"f2\"\r\n"
				+ "Content-Type:text/plain; charset=UTF-8\r\n\r\n1\r\n--b0und--\r\n";
		byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
		List<Integer> everyByte = new ArrayList<>();
		for (int i = 1; i < bytes.length; i++) {
			everyByte.add(i);
		}
		for (int maxHeadersSize = 87; maxHeadersSize <= 93; maxHeadersSize++) {
			Limits limits = new Limits(256 * 1024, -1, -1, maxHeadersSize);
			assertReadAlike(factory, limits, boundary, bytes, List.of(), false, "[" + limits + " one buffer]");
			assertReadAlike(factory, limits, boundary, bytes, everyByte, false, "[" + limits + " one byte per buffer]");
		}
		factory.assertNoLeaks();
	}

	@ParameterizedTest(name = "on {0} buffers")
	@ValueSource(strings = { "heap", "netty" })
	void aPartWhoseTypeAndDispositionAreBothMalformedFailsOnItsTypeLikeStock(String buffers) {
		// found by the fuzz's long mode (seed 20261130, case 4210): stock reads the type first
		String body = "--b0und\r\nContent-Disposition: form-data; name\u00bd\"d1\"\r\n"
				+ "Content-Type: text/plain;: charset=UTF-8\r\n\r\nx\r\n--b0und--\r\n";
		assertFixedCaseReadAlike(buffers, Limits.DEFAULT, body, true, "[malformed type and disposition]");
	}

	@ParameterizedTest(name = "on {0} buffers")
	@ValueSource(strings = { "heap", "netty" })
	void aFilePartWithAMalformedDispositionInABodyThatBreaksOffFailsAsTheBrokenBodyLikeStock(String buffers) {
		// found by the fuzz's long mode (seed 20261130, case 8778): stock reads a file part's
		// disposition only when the part is complete, and this one never is
		String body = "--b0und\r\nContent-Disposition: form-data; name\"f1\"; filename=\"a.bin\"\r\n"
				+ "Content-Type: application/octet-stream\r\n\r\nbytes of a body that breaks off\r\n--b0u";
		assertFixedCaseReadAlike(buffers, Limits.DEFAULT, body, true, "[malformed disposition, unclosed body]");
	}

	@ParameterizedTest(name = "on {0} buffers")
	@ValueSource(strings = { "heap", "netty" })
	void aFilePartWithAMalformedTypeInABodyThatBreaksOffFailsOnItsTypeAsReadInOrder(String buffers) {
		// found by the fuzz's long mode (seed 20261130, case 2219): a part written to disk
		// before it, and stock's answer is a race (see Limits#stockInOrder)
		String body = "--b0und\r\nContent-Disposition: form-data; name=\"f0\"\r\n"
				+ "Content-Type: application/json\r\n\r\n{\"spooled\": true}\r\n"
				+ "--b0und\r\nContent-Disposition: form-data; name=\"f1\"; filename=\"a.bin\"\r\n"
				+ "Content-Type: application/octet-strea\rm\r\n\r\nbytes\r\n--b0und";
		Limits spooling = new Limits(1, -1, -1, 10 * 1024);
		assertFixedCaseReadAlike(buffers, spooling, body, true, "[malformed type, unclosed body]");
	}

	@ParameterizedTest(name = "on {0} buffers")
	@ValueSource(strings = { "heap", "netty" })
	void aTypedPartInMemoryWithAMalformedDispositionFailsLikeStockAndItsPiecesAreReleased(String buffers) {
		// found by the fuzz (seed 20261130, case 666): the part's pieces left the assembly
		// before its disposition was read, and were lost when that failed
		String body = "--b0und\r\nContent-Disposition: form-data; name=\"f3\"; filename\"a.bin\"\r\n"
				+ "Content-Type: application/octet-stream\r\n\r\nbytes\r\n--b0und--\r\n";
		assertFixedCaseReadAlike(buffers, Limits.DEFAULT, body, false, "[malformed disposition of a typed part]");
	}

	@ParameterizedTest(name = "on {0} buffers")
	@ValueSource(strings = { "heap", "netty" })
	void aPartPastTheLimitOfPartsWithAMalformedTypeFailsAsTooManyPartsLikeStock(String buffers) {
		// found by the fuzz's long mode (seed 20261130, case 38870): stock counts a part
		// before it reads the part's type
		String body = "--b0und\r\nContent-Disposition: form-data; name=\"f0\"\r\n\r\nx\r\n"
				+ "--b0und\r\nContent-Disposition: form-data; name=\"f1\"\r\n\r\ny\r\n"
				+ "--b0und\r\nContent-Disposition: form-data; name=\"f2\"; filename=\"a.bin\"\r\n"
				+ "Content-Type: application/octet-strea\rm\r\n\r\nbytes\r\n--b0und--\r\n";
		Limits twoParts = new Limits(256 * 1024, -1, 2, 10 * 1024);
		assertFixedCaseReadAlike(buffers, twoParts, body, false, "[malformed type past the limit of parts]");
	}

	@Test
	void largeFilesInLargeNettyBuffersAreReadLikeStock() {
		// buffers of 16 KB to 64 KB, as Reactor Netty hands a large upload, where the other
		// cases' bodies are small: the delimiter search runs long in them, with its shift
		// table, past look-alikes of the delimiter in the content
		assumeStockReadsRandomFormsAs7010();
		Random random = TestSeed.random("SlicingPartReader.large");
		LeakTrackingDataBufferFactory netty = LeakTrackingDataBufferFactory.nettyPooled();
		for (int i = 0; i < 30; i++) {
			RandomMultipart.Body body = RandomMultipart.valid(random, 300_000);
			byte[] bytes = body.body();
			List<Integer> cuts = new ArrayList<>();
			for (int at = 16 * 1024 + random.nextInt(48 * 1024); at < bytes.length;
					at += 16 * 1024 + random.nextInt(48 * 1024)) {
				cuts.add(at);
			}
			assertReadAlike(netty, Limits.random(random), body.boundary(), bytes, cuts, false,
					"[seed=" + TestSeed.SEED + " large case=" + i + "]");
		}
		netty.assertNoLeaks();
	}

	@Test
	void fuzzedFormsAreReadLikeStock() {
		assumeStockReadsRandomFormsAs7010();
		Random random = TestSeed.random("SlicingPartReader.fuzz");
		LeakTrackingDataBufferFactory heap = LeakTrackingDataBufferFactory.heap();
		LeakTrackingDataBufferFactory netty = LeakTrackingDataBufferFactory.nettyPooled();
		long deadline = System.nanoTime() + Duration.ofSeconds(FUZZ_SECONDS).toNanos();
		int cases = 0;
		while (System.nanoTime() < deadline) {
			// one body in five made for a delimiter search to read over and over
			RandomMultipart.Body body = (random.nextInt(5) == 0) ? RandomMultipart.hostile(random, 2000).body()
					: RandomMultipart.valid(random, 2000);
			byte[] bytes = body.body();
			for (int i = random.nextInt(4); i >= 0; i--) {
				bytes = RandomMultipart.mutate(random, new RandomMultipart.Body(body.boundary(), bytes));
			}
			assertReadAlike(random.nextBoolean() ? heap : netty, Limits.random(random), body.boundary(), bytes,
					cuts(random, bytes.length), true, "[seed=" + TestSeed.SEED + " fuzz case=" + cases + "]");
			cases++;
		}
		heap.assertNoLeaks();
		netty.assertNoLeaks();
		logger.info(String.format("fuzzed %d cases in %d s (seed %d), %d broken bodies too large for one reader"
				+ " and malformed for the other", cases, FUZZ_SECONDS, TestSeed.SEED, mixedErrors.get()));
	}

	/** A fixed case of the fuzz, on the named buffers: read as stock reads it, nothing leaked. */
	@ParameterizedTest(name = "on {0} buffers")
	@ValueSource(strings = { "heap", "netty" })
	void thePartsGoOutAtTheClosingBoundaryAndTheEpilogueIsNotWaitedForLikeStock(String buffers) {
		LeakTrackingDataBufferFactory factory = factory(buffers);
		// the file over the in-memory limit: its part goes out once its file is written
		Limits limits = new Limits(16, -1, -1, 10 * 1024);
		EpilogueLeftBody stockBody = new EpilogueLeftBody(DefaultDataBufferFactory.sharedInstance);
		Outcome expected = read(limits.stockInOrder(this.stockFiles), stockBody.request());
		EpilogueLeftBody body = new EpilogueLeftBody(factory);
		Outcome actual = read(limits.fastpath(this.fastpathFiles), body.request());
		assertThat(expected.error()).as("stock's error").isNull();
		assertThat(actual.error()).as("Fastpath's error").isNull();
		assertThat(actual.parts()).isEqualTo(expected.parts()).hasSize(2);
		assertThat(body.fate()).isEqualTo(stockBody.fate());
		assertThat(files(this.fastpathFiles)).as("Fastpath's files left").isEmpty();
		factory.assertNoLeaks();
	}

	private void assertFixedCaseReadAlike(String buffers, Limits limits, String body, boolean broken,
			String description) {

		LeakTrackingDataBufferFactory factory = factory(buffers);
		assertReadAlike(factory, limits, "b0und", body.getBytes(StandardCharsets.ISO_8859_1), List.of(), broken,
				description);
		factory.assertNoLeaks();
	}

	private void assertReadAlike(LeakTrackingDataBufferFactory factory, Limits limits, String boundary, byte[] body,
			List<Integer> cuts, boolean broken, String description) {

		String described = description + " boundary " + boundary + " cuts " + cuts + " body:\n"
				+ new String(body, StandardCharsets.ISO_8859_1);
		// Stock reads plain heap buffers: it is the reference, and it leaks a pooled buffer
		// when a form field is over the in-memory limit, which the leak detector would
		// report against this test
		Outcome expected = StockDroppedErrors.collect(() -> read(limits.stockInOrder(this.stockFiles),
				DefaultDataBufferFactory.sharedInstance, boundary, body, cuts));
		// Fastpath must not drop errors (stock's parser does, on a body that ends unclosed)
		List<Throwable> dropped = new CopyOnWriteArrayList<>();
		Hooks.onErrorDropped(dropped::add);
		Outcome actual;
		try {
			actual = read(limits.fastpath(this.fastpathFiles), factory, boundary, body, cuts);
		}
		finally {
			Hooks.resetOnErrorDropped();
		}
		assertThat(dropped).as(described + "\nerrors Fastpath dropped").isEmpty();
		if (expected.error() != null) {
			assertThat(actual.error()).as(described + "\nstock failed with " + expected.error() + ", Fastpath read "
					+ actual.parts()).isNotNull();
			String expectedKind = ErrorKinds.ofStock(expected.error());
			String actualKind = ErrorKinds.of(actual.error());
			if (broken && !expectedKind.equals(actualKind)
					&& Set.of("malformed", "too large").containsAll(List.of(expectedKind, actualKind))) {
				// A broken body can be both: stock holds back the last buffer of a part until
				// it knows the buffer holds no delimiter, Fastpath only the bytes that may
				// start one, so Fastpath can see a part over a limit before the body ends
				// unclosed, and stock the reverse with a part's headers over their limit.
				mixedErrors.incrementAndGet();
			}
			else {
				assertThat(actualKind).as(described + "\nstock: " + expected.error() + "\nFastpath: " + actual.error())
					.isEqualTo(expectedKind);
			}
		}
		else {
			assertThat(actual.error()).as(described).isNull();
			assertThat(actual.parts()).as(described).isEqualTo(expected.parts());
		}
		assertThat(files(this.fastpathFiles)).as(described + "\nFastpath's files left").isEmpty();
	}

	static Outcome read(HttpMessageReader<Part> reader, DataBufferFactory factory, String boundary,
			byte[] body, List<Integer> cuts) {

		List<byte[]> chunks = new ArrayList<>();
		int start = 0;
		for (int cut : cuts) {
			chunks.add(Arrays.copyOfRange(body, start, cut));
			start = cut;
		}
		chunks.add(Arrays.copyOfRange(body, start, body.length));
		Flux<DataBuffer> buffers = Flux.fromIterable(chunks).map((chunk) -> {
			// not allocateBuffer(n).write(chunk): a wrapper returns its delegate from write
			DataBuffer buffer = factory.allocateBuffer(chunk.length);
			buffer.write(chunk);
			return buffer;
		});
		MockServerHttpRequest request = MockServerHttpRequest.post("/")
			.contentType(new MediaType(MediaType.MULTIPART_FORM_DATA, Map.of("boundary", "\"" + boundary + "\"")))
			.body(buffers);
		return read(reader, request);
	}

	/** Read the request's parts: each as text, then deleted; or the error. */
	static Outcome read(HttpMessageReader<Part> reader, MockServerHttpRequest request) {
		List<Part> parts = new CopyOnWriteArrayList<>();
		Throwable error = null;
		try {
			reader.read(PART, request, Map.of()).doOnNext(parts::add).blockLast(Duration.ofSeconds(20));
		}
		catch (RuntimeException ex) {
			error = Exceptions.unwrap(ex);
		}
		List<String> views = new ArrayList<>();
		try {
			if (error == null) {
				for (Part part : parts) {
					views.add(view(part));
				}
			}
		}
		finally {
			for (Part part : parts) {
				part.delete().block(Duration.ofSeconds(10));
			}
		}
		return new Outcome(views, error);
	}

	static String view(Part part) {
		StringBuilder view = new StringBuilder();
		view.append((part instanceof FormFieldPart) ? "field " : (part instanceof FilePart) ? "file " : "part ");
		try {
			view.append(part.name());
		}
		catch (IllegalStateException ex) {
			view.append("(no name)");
		}
		if (part instanceof FilePart file) {
			view.append(" (").append(file.filename()).append(')');
		}
		List<String> headers = new ArrayList<>();
		part.headers().forEach((name, values) -> headers.add(name + "=" + values));
		view.append(' ').append(headers);
		if (part instanceof FormFieldPart field) {
			view.append(" value [").append(field.value()).append(']');
		}
		else {
			DataBuffer content = DataBufferUtils.join(part.content()).block(Duration.ofSeconds(10));
			byte[] bytes = new byte[(content != null) ? content.readableByteCount() : 0];
			if (content != null) {
				content.read(bytes);
				DataBufferUtils.release(content);
			}
			view.append(" content ").append(bytes.length).append(" bytes [")
				.append(new String(bytes, StandardCharsets.ISO_8859_1)).append(']');
		}
		return view.toString();
	}

	static List<Path> files(Path directory) {
		try (Stream<Path> files = Files.list(directory)) {
			return files.toList();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Every cut of a body of the given length in two, and in three with the second cut up
	 * to 4 bytes after the first: every boundary, header and line end split every way.
	 */
	static List<List<Integer>> cutsNear(int length) {
		List<List<Integer>> all = new ArrayList<>();
		for (int cut = 0; cut <= length; cut++) {
			all.add(List.of(cut));
			for (int end = cut + 1; end < Math.min(length, cut + 5); end++) {
				all.add(List.of(cut, end));
			}
		}
		return all;
	}

	/** The cuts of a body of the given length into buffers of one byte. */
	static List<Integer> cutsAtEveryByte(int length) {
		return IntStream.range(1, length).boxed().toList();
	}

	static List<Integer> cuts(Random random, int length) {
		List<Integer> cuts = new ArrayList<>();
		int mode = random.nextInt(4);
		if (mode == 0 || length == 0) {
			return cuts;
		}
		if (mode == 1 && length <= 600) {
			return cutsAtEveryByte(length);
		}
		// Distinct cuts inside the body: no empty buffer, after which stock fails to see a
		// closing boundary split as "-" "-" (a stock quirk, not one to copy)
		int count = 1 + random.nextInt(Math.min(length, 40));
		TreeSet<Integer> distinct = new TreeSet<>();
		for (int i = 0; i < count; i++) {
			distinct.add(1 + random.nextInt(Math.max(1, length - 1)));
		}
		distinct.remove(length);
		cuts.addAll(distinct);
		return cuts;
	}

	static LeakTrackingDataBufferFactory factory(String buffers) {
		return "heap".equals(buffers) ? LeakTrackingDataBufferFactory.heap()
				: LeakTrackingDataBufferFactory.nettyPooled();
	}

	/**
	 * Skip the random comparisons where stock is the older reader: Spring Framework 7.0.8
	 * (Boot 4.0.7) drops an empty part that is not the last when its delimiter comes in the
	 * buffer of its headers (spring-framework#37264), and fails some forms for their disk
	 * usage that 7.0.10 reads ("Part exceeded the disk usage limit of 50 bytes" on parts
	 * under the in-memory limit), both seen in CI at Boot 4.0.7. Fastpath's reader reads as
	 * 7.0.10 does, the reference on Boot 4.1.2; the fixed cases here run on both.
	 */
	static void assumeStockReadsRandomFormsAs7010() {
		String version = SpringVersion.getVersion();
		assumeTrue(version == null || !version.matches("7\\.0\\.[0-9]"),
				() -> "Spring Framework " + version + "'s multipart reader differs from 7.0.10's on random forms");
	}

	/** What a reader gave: the parts, each as text, or its error. */
	record Outcome(List<String> parts, @Nullable Throwable error) {
	}

	/** The settings both readers get. */
	record Limits(int maxInMemorySize, long maxDiskUsagePerPart, int maxParts, int maxHeadersSize) {

		static final Limits DEFAULT = new Limits(256 * 1024, -1, -1, 10 * 1024);

		static Limits random(Random random) {
			if (random.nextBoolean()) {
				return DEFAULT;
			}
			int[] inMemory = { -1, 1, 16, 100, 1000, 256 * 1024 };
			long[] disk = { -1, -1, 50, 3000 };
			int[] parts = { -1, -1, 2, 4 };
			int[] headers = { 10 * 1024, 10 * 1024, 90 };
			return new Limits(inMemory[random.nextInt(inMemory.length)], disk[random.nextInt(disk.length)],
					parts[random.nextInt(parts.length)], headers[random.nextInt(headers.length)]);
		}

		DefaultPartHttpMessageReader stock(Path files) {
			DefaultPartHttpMessageReader reader = new DefaultPartHttpMessageReader();
			reader.setMaxInMemorySize(this.maxInMemorySize);
			reader.setMaxDiskUsagePerPart(this.maxDiskUsagePerPart);
			reader.setMaxParts(this.maxParts);
			reader.setMaxHeadersSize(this.maxHeadersSize);
			try {
				reader.setFileStorageDirectory(files);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			return reader;
		}

		/**
		 * Stock as the reference: its reader with its blocking work run in order. Stock's
		 * own answer to a body with two faults is a race: its parser reads ahead while a
		 * part before is written to disk on the blocking scheduler, and whichever fault it
		 * meets first fails the body (fuzz case 2219 of seed 20261130, a file part with a
		 * malformed type in a body that breaks off: 36 runs of 40 failed as the broken
		 * body, 4 on the type). Run in order, it meets the faults in the body's order,
		 * every run the same: the reference where stock is inconsistent.
		 */
		DefaultPartHttpMessageReader stockInOrder(Path files) {
			DefaultPartHttpMessageReader reader = stock(files);
			reader.setBlockingOperationScheduler(Schedulers.immediate());
			return reader;
		}

		SlicingPartReader fastpath(Path files) {
			MultipartSettings settings = MultipartSettings.of(stock(files));
			assertThat(settings).as("the stock reader's settings").isNotNull();
			return new SlicingPartReader(settings, stock(files));
		}

	}

}
