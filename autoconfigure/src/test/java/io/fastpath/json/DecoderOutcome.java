package io.fastpath.json;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Signal;

/**
 * What a decoder made of one input: the values it emitted and the error, if any, that
 * it ended with; and how that differs from what another decoder made of it.
 * <p>Two outcomes agree when both fail with an exception of the same class, or when both
 * complete with values that are equal, of the same classes, all the way down. Values
 * emitted before a failure are compared apart ({@link #valuesBeforeErrorDifferenceFrom}),
 * because where a failure shows may depend on chunking: all of them between two decoders
 * that read the same chunks alike, those both emitted otherwise.
 */
final class DecoderOutcome {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final List<Object> values;

	private final @Nullable Throwable error;

	private final boolean thrownOnAssembly;

	private DecoderOutcome(List<Object> values, @Nullable Throwable error, boolean thrownOnAssembly) {
		this.values = values;
		this.error = error;
		this.thrownOnAssembly = thrownOnAssembly;
	}

	/** Subscribe to what the call returns and record every signal, or what it throws. */
	static DecoderOutcome of(Supplier<? extends Publisher<?>> call) {
		Publisher<?> publisher;
		try {
			publisher = call.get();
		}
		catch (RuntimeException ex) {
			return new DecoderOutcome(List.of(), ex, true);
		}
		List<? extends Signal<?>> signals;
		try {
			signals = Flux.from(publisher).materialize().collectList().block(TIMEOUT);
		}
		catch (IllegalStateException ex) {
			return new DecoderOutcome(List.of(), new IllegalStateException("No result within " + TIMEOUT, ex),
					false);
		}
		List<Object> values = new ArrayList<>();
		Throwable error = null;
		for (Signal<?> signal : Objects.requireNonNull(signals)) {
			if (signal.isOnNext()) {
				values.add(signal.get());
			}
			else if (signal.isOnError()) {
				error = signal.getThrowable();
			}
		}
		return new DecoderOutcome(values, error, false);
	}

	/** Record the value of a blocking call, or what it throws. */
	static DecoderOutcome ofBlocking(Callable<@Nullable Object> call) {
		try {
			Object value = call.call();
			return new DecoderOutcome((value != null ? List.of(value) : List.of()), null, false);
		}
		catch (Exception ex) {
			return new DecoderOutcome(List.of(), ex, false);
		}
	}

	List<Object> values() {
		return this.values;
	}

	@Nullable Throwable error() {
		return this.error;
	}

	boolean failed() {
		return this.error != null;
	}

	/** How the other outcome differs from this, the expected one, or {@code null} if they agree. */
	@Nullable String differenceFrom(DecoderOutcome other) {
		return differenceFrom(other, false);
	}

	/**
	 * How the other outcome differs from this, the expected one, or {@code null} if they
	 * agree; with {@code floatsWithinUlp}, a {@code float} may be one ulp off. Stock's
	 * {@code Flux} path rounds float properties twice (the decimal to a double in its
	 * {@code TokenBuffer}, then to a float), so it can be one ulp away from the correctly
	 * rounded value that Jackson reads from the bytes, and that Fastpath returns (its own
	 * tests check the correct rounding).
	 */
	@Nullable String differenceFrom(DecoderOutcome other, boolean floatsWithinUlp) {
		if (this.error != null) {
			if (other.error == null) {
				return "expected " + this.error.getClass().getName() + " but completed with " + other.values.size()
						+ " value(s)";
			}
			if (this.error.getClass() != other.error.getClass()) {
				return "expected " + this.error.getClass().getName() + " but failed with "
						+ other.error.getClass().getName();
			}
			if (this.thrownOnAssembly != other.thrownOnAssembly) {
				return "expected the error " + (this.thrownOnAssembly ? "thrown" : "signalled") + " but it was "
						+ (other.thrownOnAssembly ? "thrown" : "signalled");
			}
			return null;
		}
		if (other.error != null) {
			return "expected " + this.values.size() + " value(s) but failed with " + describe(other.error);
		}
		return difference(this.values, other.values, "values", floatsWithinUlp);
	}

	/**
	 * How the values the other outcome emitted before failing differ from this one's,
	 * when both failed, or {@code null} if they agree.
	 * @param other the actual outcome
	 * @param all whether every value is compared (decoders that read the same chunks the
	 * same way), or only those both emitted (a failure may show a chunk earlier in one)
	 * @return the first difference, or {@code null}
	 */
	@Nullable String valuesBeforeErrorDifferenceFrom(DecoderOutcome other, boolean all) {
		if (this.error == null || other.error == null) {
			return null;
		}
		int compared = all ? Math.max(this.values.size(), other.values.size())
				: Math.min(this.values.size(), other.values.size());
		List<Object> expected = this.values.subList(0, Math.min(compared, this.values.size()));
		List<Object> actual = other.values.subList(0, Math.min(compared, other.values.size()));
		return difference(expected, actual, "values before the error");
	}

	/** The class of the error's cause in each outcome, when both failed but for different causes. */
	@Nullable String causeDifferenceFrom(DecoderOutcome other) {
		if (this.error == null || other.error == null) {
			return null;
		}
		Class<?> expected = (this.error.getCause() != null ? this.error.getCause().getClass() : null);
		Class<?> actual = (other.error.getCause() != null ? other.error.getCause().getClass() : null);
		if (Objects.equals(expected, actual)) {
			return null;
		}
		return simpleName(expected) + " -> " + simpleName(actual);
	}

	private static String simpleName(@Nullable Class<?> type) {
		return (type != null ? type.getSimpleName() : "no cause");
	}

	@Override
	public String toString() {
		String emitted = abbreviate(String.valueOf(this.values), 600) + " of "
				+ this.values.stream().map((value) -> value.getClass().getSimpleName()).distinct().toList();
		if (this.error == null) {
			return "completed with " + emitted;
		}
		return (this.thrownOnAssembly ? "threw " : "failed with ") + describe(this.error)
				+ (this.values.isEmpty() ? "" : " after " + emitted);
	}

	private static String describe(Throwable error) {
		String text = error.getClass().getName() + ": " + abbreviate(String.valueOf(error.getMessage()), 300);
		Throwable cause = error.getCause();
		return (cause != null && cause != error) ? text + " (cause " + cause.getClass().getName() + ")" : text;
	}

	/**
	 * The text, cut at the given length, with control characters and unpaired surrogates
	 * escaped: they would not survive into test reports.
	 */
	static String abbreviate(String text, int max) {
		String cut = (text.length() <= max ? text : text.substring(0, max) + "...(" + text.length() + " chars)");
		StringBuilder visible = new StringBuilder(cut.length());
		for (int i = 0; i < cut.length(); i++) {
			char c = cut.charAt(i);
			boolean paired = Character.isHighSurrogate(c) && i + 1 < cut.length()
					&& Character.isLowSurrogate(cut.charAt(i + 1));
			if (paired) {
				visible.append(c).append(cut.charAt(++i));
			}
			else if (c < 0x20 || Character.isSurrogate(c) || c == 0xFFFE || c == 0xFFFF) {
				visible.append(String.format("\\u%04x", (int) c));
			}
			else {
				visible.append(c);
			}
		}
		return visible.toString();
	}

	/**
	 * The first place where the actual value differs from the expected one, comparing
	 * classes as well as values, so that an {@code Integer} for a {@code Long}, a
	 * {@code HashMap} for a {@code LinkedHashMap} or an immutable list for an
	 * {@code ArrayList} all show; or {@code null} if there is none. Doubles and floats
	 * compare by their bits, as {@link Double#equals} does.
	 */
	static @Nullable String difference(@Nullable Object expected, @Nullable Object actual, String path) {
		return difference(expected, actual, path, false);
	}

	static @Nullable String difference(@Nullable Object expected, @Nullable Object actual, String path,
			boolean floatsWithinUlp) {
		if (expected == null || actual == null) {
			return (expected == actual) ? null : mismatch(path, expected, actual);
		}
		if (expected.getClass() != actual.getClass()) {
			return path + ": expected a " + expected.getClass().getName() + " but was a "
					+ actual.getClass().getName() + " (" + abbreviate(String.valueOf(actual), 200) + ")";
		}
		if (expected.getClass().isArray()) {
			return elementsDifference(Array.getLength(expected), Array.getLength(actual),
					(i) -> Array.get(expected, i), (i) -> Array.get(actual, i), path, floatsWithinUlp);
		}
		if (expected instanceof List<?> expectedList) {
			List<?> actualList = (List<?>) actual;
			return elementsDifference(expectedList.size(), actualList.size(), expectedList::get, actualList::get,
					path, floatsWithinUlp);
		}
		if (expected instanceof Set<?>) {
			return expected.equals(actual) ? null : mismatch(path, expected, actual);
		}
		if (expected instanceof Map<?, ?> expectedMap) {
			Map<?, ?> actualMap = (Map<?, ?>) actual;
			List<?> expectedKeys = new ArrayList<>(expectedMap.keySet());
			List<?> actualKeys = new ArrayList<>(actualMap.keySet());
			if (!expectedKeys.equals(actualKeys)) {
				return path + ": expected keys " + abbreviate(expectedKeys.toString(), 200) + " but was "
						+ abbreviate(actualKeys.toString(), 200);
			}
			for (Object key : expectedKeys) {
				String difference = difference(expectedMap.get(key), actualMap.get(key), path + "[" + key + "]",
						floatsWithinUlp);
				if (difference != null) {
					return difference;
				}
			}
			return null;
		}
		if (expected.getClass().getPackageName().equals(DecoderOutcome.class.getPackageName())
				&& !expected.getClass().isEnum()) {
			return fieldsDifference(expected, actual, path, floatsWithinUlp);
		}
		if (floatsWithinUlp && expected instanceof Float expectedFloat && actual instanceof Float actualFloat
				&& Math.abs(expectedFloat - actualFloat) <= Math.ulp(expectedFloat)) {
			return null;
		}
		return expected.equals(actual) ? null : mismatch(path, expected, actual);
	}

	private static @Nullable String elementsDifference(int expectedSize, int actualSize, IntFunction expected,
			IntFunction actual, String path, boolean floatsWithinUlp) {
		if (expectedSize != actualSize) {
			return path + ": expected " + expectedSize + " elements but was " + actualSize;
		}
		for (int i = 0; i < expectedSize; i++) {
			String difference = difference(expected.apply(i), actual.apply(i), path + "[" + i + "]",
					floatsWithinUlp);
			if (difference != null) {
				return difference;
			}
		}
		return null;
	}

	private static @Nullable String fieldsDifference(Object expected, Object actual, String path,
			boolean floatsWithinUlp) {
		for (Class<?> type = expected.getClass(); type != Object.class; type = type.getSuperclass()) {
			for (Field field : type.getDeclaredFields()) {
				if (Modifier.isStatic(field.getModifiers())) {
					continue;
				}
				field.setAccessible(true);
				try {
					String difference = difference(field.get(expected), field.get(actual),
							path + "." + field.getName(), floatsWithinUlp);
					if (difference != null) {
						return difference;
					}
				}
				catch (IllegalAccessException ex) {
					throw new IllegalStateException(ex);
				}
			}
		}
		return null;
	}

	private static String mismatch(String path, @Nullable Object expected, @Nullable Object actual) {
		return path + ": expected <" + abbreviate(String.valueOf(expected), 300) + "> but was <"
				+ abbreviate(String.valueOf(actual), 300) + ">";
	}

	private interface IntFunction {

		@Nullable Object apply(int index);

	}

}
