package io.fastpath.json;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link JsonElementSplitter}: what it hands over, chunk by chunk.
 */
class JsonElementSplitterTests {

	@Test
	void valuesOfATopLevelArrayAreHandedOverBracketedPerChunk() {
		assertThat(split("[1, {\"a\":[2,\"]\"]} ,\"x\\\"y\" ,true]")).containsExactly("[1, {\"a\":[2,\"]\"]} ,\"x\\\"y\" ,true]");
		assertThat(split("[1,2", ",3]")).as("2 may go on in the next chunk").containsExactly("[1]", "[2,3]");
	}

	@Test
	void elementCutByAChunkIsCarriedToTheNext() {
		assertThat(split("[{\"na", "me\":\"a,b\"}", ",{\"n\":1}]")).containsExactly("[{\"name\":\"a,b\"}]", "[{\"n\":1}]");
		assertThat(split("[12", "34,5", "6]")).containsExactly("[1234]", "[56]");
	}

	@Test
	void scalarAtTheEndOfTheStreamIsCompletedByTheEnd() {
		assertThat(split("12", "3")).containsExactly("root:123");
	}

	@Test
	void topLevelValuesThatAreNotArraysAreElements() {
		assertThat(split("{\"a\":1}\n{\"a\":2}\n")).containsExactly("root:{\"a\":1}\n{\"a\":2}");
		assertThat(split("{\"a\":1} [2] 3")).containsExactly("root:{\"a\":1}", "[2]", "root:3");
	}

	@Test
	void emptyArrayAndWhitespaceHandOverNothing() {
		assertThat(split(" [ ] ", "\n")).isEmpty();
		assertThat(split("")).isEmpty();
	}

	@Test
	void misplacedCommasFailWithTheirOffset() {
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> split("[1,,2]"))
			.withMessageContaining("byte offset 3");
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> split("[,1]"));
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> split("[1,]"));
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> split("[1 2]"));
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> split("1,2"));
	}

	@Test
	void truncatedStreamFails() {
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> split("[1,2"));
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> split("[{\"a\":1"));
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> split("\"abc"));
	}

	@Test
	void unexpectedCloseMarkerFails() {
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> split("[1]]"));
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> split("}"));
	}

	@Test
	void elementSpanningChunksBeyondTheLimitFailsLikeStock() {
		JsonElementSplitter splitter = new JsonElementSplitter(8);
		List<String> out = new ArrayList<>();
		splitter.feed(chunk("[\"abcde"), recorder(out));
		assertThatExceptionOfType(DataBufferLimitException.class)
			.isThrownBy(() -> splitter.feed(chunk("fghij"), recorder(out)));
		assertThat(out).as("the element in progress is checked for syntax errors first")
			.containsExactly("incomplete:[\"abcdefghij");
	}

	@Test
	void byteOrderMarkIsSkippedEvenWhenCut() {
		JsonElementSplitter splitter = new JsonElementSplitter(-1);
		List<String> out = new ArrayList<>();
		splitter.feed(DefaultDataBufferFactory.sharedInstance.wrap(new byte[] { (byte) 0xEF }), recorder(out));
		splitter.feed(DefaultDataBufferFactory.sharedInstance.wrap(new byte[] { (byte) 0xBB, (byte) 0xBF, '[' }),
				recorder(out));
		splitter.feed(chunk("1]"), recorder(out));
		splitter.end(recorder(out));
		assertThat(out).containsExactly("[1]");
	}

	@Test
	void topLevelLiteralNeedsWhitespaceBeforeTheNextValue() {
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> split("null[2]"))
			.withMessageContaining("expected space separating root-level values");
		assertThat(split("null [2]")).containsExactly("root:null", "[2]");
		assertThat(split("1[2]")).as("numbers need no space, as stock").containsExactly("root:1", "[2]");
	}

	@Test
	void elementCompletedWithinAChunkIsNotLimitedLikeStock() {
		JsonElementSplitter splitter = new JsonElementSplitter(8);
		List<String> out = new ArrayList<>();
		splitter.feed(chunk("[\"abcdefghijklmnop\"]"), recorder(out));
		assertThat(out).hasSize(1);
	}

	private static List<String> split(String... chunks) {
		JsonElementSplitter splitter = new JsonElementSplitter(-1);
		List<String> out = new ArrayList<>();
		for (String chunk : chunks) {
			splitter.feed(chunk(chunk), recorder(out));
		}
		splitter.end(recorder(out));
		return out;
	}

	private static org.springframework.core.io.buffer.DataBuffer chunk(String content) {
		return DefaultDataBufferFactory.sharedInstance.wrap(content.getBytes(StandardCharsets.UTF_8));
	}

	private static JsonElementSplitter.Regions recorder(List<String> out) {
		return new JsonElementSplitter.Regions() {

			@Override
			public void arrayValues(byte[] bytes, int offset, int length) {
				out.add(new String(bytes, offset, length, StandardCharsets.UTF_8));
			}

			@Override
			public void rootValues(byte[] bytes, int offset, int length) {
				out.add("root:" + new String(bytes, offset, length, StandardCharsets.UTF_8));
			}

			@Override
			public void checkIncomplete(byte[] bytes, int offset, int length) {
				out.add("incomplete:" + new String(bytes, offset, length, StandardCharsets.UTF_8));
			}

		};
	}

}
