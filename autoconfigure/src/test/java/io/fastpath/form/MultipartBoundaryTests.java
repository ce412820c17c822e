package io.fastpath.form;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.fastpath.test.TestSeed;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.http.HttpHeaders;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link MultipartAssembly#boundary} reads a content type's {@code boundary} without
 * parsing the whole media type when the content type has the plain shape clients send
 * ({@link MultipartAssembly#boundaryParameter}), and through Spring's parser otherwise:
 * on every value {@link MediaType#parseMediaType} accepts, it reads the boundary Spring's
 * {@code MultipartUtils.boundary} reads ({@code getParameter("boundary")}, unquoted).
 * Values Spring rejects never reach a multipart reader: the reader is chosen by the
 * parsed content type.
 */
class MultipartBoundaryTests {

	private static final String[] NAMES = { "boundary", "Boundary", "BOUNDARY" };

	private static final String[] VALUES = { "abc", "----WebKitFormBoundary7MA4YWxkTrZu0gW", "\"abc\"",
			"\"a;b\"", "\"a b\"", "\"a\\\"b\"", "\"a\\\\\"", "'()+_,-./:=?", "\"\"", "a=b", "\"a,b\"" };

	private static final String[] OTHERS = { "charset=UTF-8", "a=\"x;y\"", "foo=bar", "q=\"\\\";\"",
			"boundaryx=1", "xboundary=2", "name=\"boundary=3\"" };

	private static final String[] SPACES = { "", "", " ", " ", "\t", "  " };

	@ParameterizedTest
	@ValueSource(strings = { "multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW",
			"multipart/form-data;boundary=Uc4xkOaJ1-tA6hDJ0Ynq3jXxzsIxKU", "multipart/form-data; boundary=\"a;b c\"",
			"multipart/form-data; charset=UTF-8; BOUNDARY=x", "multipart/mixed; boundary=\"\"" })
	void readsThePlainShapesClientsSendWithoutSpringsParser(String contentType) {
		assertThat(MultipartAssembly.boundaryParameter(contentType)).as(contentType)
			.isNotNull()
			.isEqualTo(MediaType.parseMediaType(contentType).getParameter("boundary"));
		assertThat(MultipartAssembly.boundary(request(contentType), StandardCharsets.UTF_8)).as(contentType)
			.isEqualTo(springsBoundary(contentType));
	}

	@ParameterizedTest
	@ValueSource(strings = { "multipart/form-data; boundary = y", "multipart/form-data; boundary=\"a\\\"b\"",
			"multipart/form-data;\tboundary=x", "multipart/form-data; boundary=x ", "multipart/form-data; x; boundary=y",
			"multipart/form-data; boundary=x; boundary=y", "multipart/form-data; a=x\"y; boundary=q",
			"multipart/form-data x; boundary=y", "multipart/form-data" })
	void leavesOtherShapesToSpringsParser(String contentType) {
		assertThat(MultipartAssembly.boundaryParameter(contentType)).as(contentType).isNull();
		MediaType parsed;
		try {
			parsed = MediaType.parseMediaType(contentType);
		}
		catch (InvalidMediaTypeException ex) {
			return;
		}
		assertThat(MultipartAssembly.boundary(request(contentType), StandardCharsets.UTF_8)).as(contentType)
			.isEqualTo(springsBoundary(parsed));
	}

	@Test
	void readsTheBoundarySpringReadsInRandomContentTypes() {
		long seed = TestSeed.SEED;
		System.out.println("MultipartBoundaryTests: -Dfastpath.seed=" + seed);
		Random random = new Random(seed);
		int compared = 0;
		int plain = 0;
		for (int i = 0; i < 20_000; i++) {
			String contentType = randomContentType(random);
			MediaType parsed;
			try {
				parsed = MediaType.parseMediaType(contentType);
			}
			catch (InvalidMediaTypeException ex) {
				continue;
			}
			String parameter = MultipartAssembly.boundaryParameter(contentType);
			if (parameter != null) {
				assertThat(parameter).as("%s (seed %d)", contentType, seed).isEqualTo(parsed.getParameter("boundary"));
				plain++;
			}
			assertThat(MultipartAssembly.boundary(request(contentType), StandardCharsets.UTF_8))
				.as("%s (seed %d)", contentType, seed)
				.isEqualTo(springsBoundary(parsed));
			compared++;
		}
		assertThat(compared).as("content types Spring accepts, of 20,000 (seed %d)", seed).isGreaterThan(5_000);
		assertThat(plain).as("of them read without Spring's parser (seed %d)", seed).isGreaterThan(1_000);
	}

	private static MockServerHttpRequest request(String contentType) {
		return MockServerHttpRequest.post("/").header(HttpHeaders.CONTENT_TYPE, contentType).build();
	}

	private static byte @Nullable [] springsBoundary(String contentType) {
		return springsBoundary(MediaType.parseMediaType(contentType));
	}

	/** What Spring's {@code MultipartUtils.boundary} reads, with the parsed type. */
	private static byte @Nullable [] springsBoundary(MediaType contentType) {
		String boundary = contentType.getParameter("boundary");
		if (boundary == null) {
			return null;
		}
		if (boundary.length() > 2 && boundary.startsWith("\"") && boundary.endsWith("\"")) {
			boundary = boundary.substring(1, boundary.length() - 1);
		}
		return boundary.getBytes(StandardCharsets.UTF_8);
	}

	/** Half of them in the plain shape (no space but after a {@code ;}), half anyhow. */
	private static String randomContentType(Random random) {
		boolean plain = random.nextBoolean();
		String[] spaces = plain ? new String[] { "" } : SPACES;
		List<String> parameters = new ArrayList<>();
		int others = random.nextInt(3);
		for (int i = 0; i < others; i++) {
			parameters.add(pick(random, OTHERS));
		}
		if (random.nextInt(5) > 0) {
			String boundary = pick(random, NAMES) + pick(random, spaces) + "=" + pick(random, spaces)
					+ pick(random, VALUES);
			parameters.add(random.nextInt(parameters.size() + 1), boundary);
		}
		StringBuilder contentType = new StringBuilder(random.nextBoolean() ? "multipart/form-data" : "multipart/mixed");
		for (String parameter : parameters) {
			contentType.append(pick(random, spaces))
				.append(';')
				.append(plain ? (random.nextBoolean() ? " " : "") : pick(random, SPACES))
				.append(parameter);
		}
		return contentType.append(pick(random, spaces)).toString();
	}

	private static String pick(Random random, String[] choices) {
		return choices[random.nextInt(choices.length)];
	}

}
