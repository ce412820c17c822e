package io.fastpath.multipart.scan;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link MultipartScanner}'s delimiter, which the differential tests read only
 * with US-ASCII boundaries: the expected bytes are written out by hand.
 *
 * @author Fastpath
 */
class MultipartScannerTests {

	@Test
	void aDelimiterIsCrlfTwoHyphensAndTheBoundaryBetweenTheGivenIndexes() {
		assertThat(MultipartScanner.delimiter("\"ab-c\"", 1, 5, StandardCharsets.UTF_8))
			.containsExactly('\r', '\n', '-', '-', 'a', 'b', '-', 'c');
		assertThat(MultipartScanner.delimiter("ab", 0, 2, StandardCharsets.US_ASCII))
			.containsExactly('\r', '\n', '-', '-', 'a', 'b');
		assertThat(MultipartScanner.delimiter("", 0, 0, StandardCharsets.UTF_8)).containsExactly('\r', '\n', '-', '-');
	}

	@Test
	void aBoundaryBeyondUsAsciiIsEncodedInTheHeadersCharset() {
		assertThat(MultipartScanner.delimiter("\"b\u00f8\"", 1, 3, StandardCharsets.ISO_8859_1))
			.containsExactly('\r', '\n', '-', '-', 'b', 0xf8);
		assertThat(MultipartScanner.delimiter("b\u00f8", 0, 2, StandardCharsets.UTF_8))
			.containsExactly('\r', '\n', '-', '-', 'b', 0xc3, 0xb8);
	}

	@Test
	void aBoundaryInACharsetThatIsNotAsciiCompatibleIsEncodedInIt() {
		// the prefix stays single bytes, as Spring's parser writes it
		assertThat(MultipartScanner.delimiter("ab", 0, 2, StandardCharsets.UTF_16BE))
			.containsExactly('\r', '\n', '-', '-', 0, 'a', 0, 'b');
	}

}
