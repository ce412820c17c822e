package io.fastpath.multipart;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Hooks;

import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.PartEventHttpMessageReader;

import io.fastpath.multipart.RandomMultipart.BoundaryShape;
import io.fastpath.multipart.RandomMultipart.Hostile;
import io.fastpath.multipart.RandomMultipart.Hostility;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.TestSeed;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Differential tests of Fastpath's multipart readers against Spring's on bodies made for
 * a delimiter search to read over and over ({@link Hostility}), under boundaries of every
 * shape ({@link BoundaryShape}: periodic ones, hyphens): {@link SlicingPartReader} against
 * {@link DefaultPartHttpMessageReader} and {@link SlicingPartEventReader} against
 * {@link PartEventHttpMessageReader}, each with the settings of the differential tests of
 * random forms, the body whole, cut at random, or cut where each buffer ends inside a
 * look-alike of the delimiter. Both must give the same parts (as those tests compare
 * them), or the same kind of error; every buffer is released, no file is left behind.
 * <p>The build uses a fixed seed; explore with {@code -Dfastpath.seed=random}, more cases
 * with {@code -Dfastpath.cases=<n>} (a hundredth of them here).
 */
class HostileMultipartDifferentialTests {

	/** Bodies of each shape under each shape of boundary: a hundredth of the random tests' cases. */
	private static final int CASES = Math.max(1, Integer.getInteger("fastpath.cases", 200) / 100);

	@TempDir
	Path stockFiles;

	@TempDir
	Path fastpathFiles;

	static Stream<Arguments> shapesOnBuffers() {
		return Arrays.stream(Hostility.values())
			.flatMap((shape) -> Stream.of(Arguments.of(shape, "heap"), Arguments.of(shape, "netty")));
	}

	@ParameterizedTest(name = "{0} on {1} buffers")
	@MethodSource("shapesOnBuffers")
	void partsOfHostileBodiesAreReadLikeStock(Hostility shape, String buffers) {
		SlicingPartReaderDifferentialTests.assumeStockReadsRandomFormsAs7010();
		Random random = TestSeed.random("HostileMultipart.parts." + shape + "." + buffers);
		LeakTrackingDataBufferFactory factory = SlicingPartReaderDifferentialTests.factory(buffers);
		forEachCase(random, shape, (boundaries, hostile, cuts, first) -> {
			String boundary = hostile.body().boundary();
			byte[] body = hostile.body().body();
			SlicingPartReaderDifferentialTests.Limits limits = first ? SlicingPartReaderDifferentialTests.Limits.DEFAULT
					: SlicingPartReaderDifferentialTests.Limits.random(random);
			String description = describe(shape, boundaries, limits, hostile, cuts);
			SlicingPartReaderDifferentialTests.Outcome expected = SlicingPartReaderDifferentialTests.read(
					limits.stockInOrder(this.stockFiles), DefaultDataBufferFactory.sharedInstance, boundary, body, cuts);
			SlicingPartReaderDifferentialTests.Outcome actual = withoutDroppedErrors(description,
					() -> SlicingPartReaderDifferentialTests.read(limits.fastpath(this.fastpathFiles), factory,
							boundary, body, cuts));
			assertAlike(description, expected.parts(), expected.error(), actual.parts(), actual.error());
			assertThat(SlicingPartReaderDifferentialTests.files(this.fastpathFiles))
				.as(description + "\nFastpath's files left").isEmpty();
		});
		factory.assertNoLeaks();
	}

	@ParameterizedTest(name = "{0} on {1} buffers")
	@MethodSource("shapesOnBuffers")
	void partEventsOfHostileBodiesAreReadLikeStock(Hostility shape, String buffers) {
		SlicingPartReaderDifferentialTests.assumeStockReadsRandomFormsAs7010();
		Random random = TestSeed.random("HostileMultipart.events." + shape + "." + buffers);
		LeakTrackingDataBufferFactory factory = SlicingPartReaderDifferentialTests.factory(buffers);
		forEachCase(random, shape, (boundaries, hostile, cuts, first) -> {
			String boundary = hostile.body().boundary();
			byte[] body = hostile.body().body();
			SlicingPartEventReaderDifferentialTests.Limits limits = first
					? SlicingPartEventReaderDifferentialTests.Limits.DEFAULT
					: SlicingPartEventReaderDifferentialTests.Limits.random(random);
			String description = describe(shape, boundaries, limits, hostile, cuts);
			SlicingPartEventReaderDifferentialTests.Outcome expected = SlicingPartEventReaderDifferentialTests
				.read(limits.stock(), DefaultDataBufferFactory.sharedInstance, boundary, body, cuts);
			SlicingPartEventReaderDifferentialTests.Outcome actual = withoutDroppedErrors(description,
					() -> SlicingPartEventReaderDifferentialTests.read(limits.fastpath(), factory, boundary, body,
							cuts));
			assertAlike(description, expected.parts(), expected.error(), actual.parts(), actual.error());
		});
		factory.assertNoLeaks();
	}

	/**
	 * Check {@link #CASES} bodies of the shape under each shape of boundary, cut as
	 * {@link #cuts(Random, Hostile)} cuts them; the first of each with the default limits.
	 */
	private static void forEachCase(Random random, Hostility shape, HostileCase check) {
		for (BoundaryShape boundaries : BoundaryShape.values()) {
			for (int i = 0; i < CASES; i++) {
				Hostile hostile = hostile(random, shape, boundaries);
				check.check(boundaries, hostile, cuts(random, hostile), i == 0);
			}
		}
	}

	/** A check of one hostile body, cut. */
	@FunctionalInterface
	private interface HostileCase {

		void check(BoundaryShape boundaries, Hostile hostile, List<Integer> cuts, boolean defaultLimits);

	}

	/** A body of the shape, of up to 20 KB, under a boundary of up to 70 characters mostly. */
	private static Hostile hostile(Random random, Hostility shape, BoundaryShape boundaries) {
		int length = switch (random.nextInt(4)) {
			case 0 -> 1 + random.nextInt(1000);
			default -> 1 + random.nextInt(70);
		};
		return shape.body(random, 1 + random.nextInt(20 * 1024), boundaries.boundary(random, length), 10 * 1024);
	}

	/** The body whole, cut at random, or cut at the ends of (some of) its look-alikes. */
	private static List<Integer> cuts(Random random, Hostile hostile) {
		int length = hostile.body().body().length;
		return switch (random.nextInt(3)) {
			case 0 -> List.of();
			case 1 -> SlicingPartReaderDifferentialTests.cuts(random, length);
			default -> {
				TreeSet<Integer> cuts = new TreeSet<>();
				for (int end : hostile.lookAlikeEnds()) {
					if (end > 0 && end < length && random.nextBoolean()) {
						cuts.add(end);
					}
				}
				yield new ArrayList<>(cuts);
			}
		};
	}

	private static String describe(Hostility shape, BoundaryShape boundaries, Object limits, Hostile hostile,
			List<Integer> cuts) {

		String boundary = hostile.body().boundary();
		return "[seed=" + TestSeed.SEED + " " + shape + " " + hostile.body().body().length + " bytes, boundary "
				+ boundaries + " of " + boundary.length() + " " + limits + ", " + (cuts.size() + 1) + " buffers]"
				+ " boundary " + boundary + " cuts " + cuts;
	}

	/** Fastpath must not drop errors, where stock may. */
	private static <T> T withoutDroppedErrors(String description, Supplier<T> read) {
		List<Throwable> dropped = new CopyOnWriteArrayList<>();
		Hooks.onErrorDropped(dropped::add);
		try {
			return read.get();
		}
		finally {
			Hooks.resetOnErrorDropped();
			assertThat(dropped).as(description + "\nerrors Fastpath dropped").isEmpty();
		}
	}

	private static void assertAlike(String description, List<String> expectedParts, @Nullable Throwable expectedError,
			List<String> actualParts, @Nullable Throwable actualError) {

		if (expectedError != null) {
			assertThat(ErrorKinds.of(actualError))
				.as(description + "\nstock failed with " + expectedError + ", Fastpath: " + actualError)
				.isEqualTo(ErrorKinds.ofStock(expectedError));
		}
		else {
			assertThat(actualError).as(description).isNull();
			assertThat(actualParts).as(description).isEqualTo(expectedParts);
		}
	}

}
