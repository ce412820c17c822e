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

	private static final tools.jackson.databind.json.JsonMapper JSON = tools.jackson.databind.json.JsonMapper.builder()
		.build();

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
		JsonElementSplitter splitter = new JsonElementSplitter(8, false);
		List<String> out = new ArrayList<>();
		splitter.feed(chunk("[\"abcde"), recorder(out));
		assertThatExceptionOfType(DataBufferLimitException.class)
			.isThrownBy(() -> splitter.feed(chunk("fghij"), recorder(out)));
		assertThat(out).as("the element in progress is checked for syntax errors first")
			.containsExactly("incomplete:[\"abcdefghij");
	}

	@Test
	void byteOrderMarkIsSkippedEvenWhenCut() {
		JsonElementSplitter splitter = new JsonElementSplitter(-1, false);
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
		JsonElementSplitter splitter = new JsonElementSplitter(8, false);
		List<String> out = new ArrayList<>();
		splitter.feed(chunk("[\"abcdefghijklmnop\"]"), recorder(out));
		assertThat(out).hasSize(1);
	}

	@Test
	void valuesReadAheadCountAsScannedAndTheSplitterGoesOnAfterThem() {
		assertThat(splitReadingAhead(2, "[1, 2 ,3,4]")).containsExactly("ahead:1,2", "[3,4]");
		assertThat(splitReadingAhead(9, "[1,2,3]  ")).containsExactly("ahead:1,2,3");
		assertThat(splitReadingAhead(9, "[1,2", ",3]")).as("once per chunk; 2 may go on")
			.containsExactly("ahead:1", "ahead:2,3");
	}

	@Test
	void valuesCompletedBeforeInTheChunkAreReadAheadWithTheRest() {
		assertThat(splitReadingAhead(9, "[{\"a\":", "1},2,3]")).containsExactly("ahead:", "ahead:{\"a\":1},2,3");
		assertThat(splitReadingAhead(1, "[{\"a\":", "1},\"b\",3]")).as("stopped within them")
			.containsExactly("ahead:", "ahead:{\"a\":1}", "[\"b\",3]");
		assertThat(splitReadingAhead(0, "[{\"a\":", "1},2,3]")).as("none read")
			.containsExactly("ahead:", "ahead:", "[{\"a\":1},2,3]");
	}

	@Test
	void separatorsAfterValuesReadAheadAreStillChecked() {
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> splitReadingAhead(9, "[1,2]]"))
			.withMessageContaining("byte offset 5");
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> splitReadingAhead(9, "[1,2", "] ,"))
			.withMessageContaining("byte offset 6");
	}

	@Test
	void readingAheadMayGoOnAtTheEndOfTheChunkAfterTheCommaThatFollowsTheLastValueRead() {
		assertThat(splitReadingToLastComma("[1,2,", "3]")).containsExactly("ahead:1,2", "[3]");
		assertThat(splitReadingToLastComma("[1, 2 ,  3", "4 , 5]")).containsExactly("ahead:1, 2 ", "ahead:34 ",
				"[5]");
	}

	@Test
	void separatorsAfterTheCommaThatFollowsTheLastValueReadAreStillChecked() {
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> splitReadingToLastComma("[1,2,", ",3]"))
			.withMessageContaining("expected a value");
		assertThatExceptionOfType(DecodingException.class).isThrownBy(() -> splitReadingToLastComma("[1,2, ", "]"))
			.withMessageContaining("expected a value");
	}

	@Test
	void splitterThatDoesNotReadAheadNeverOffersTo() {
		List<String> out = new ArrayList<>();
		split(new JsonElementSplitter(-1, false), recorder(out, (bytes, offset, length) -> {
			throw new AssertionError("Offered to read ahead");
		}), "[1,2", ",3]");
		assertThat(out).containsExactly("[1]", "[2,3]");
	}

	/**
	 * Split with regions that read every value before the last comma of what they are
	 * offered, as the decoder does for numbers, and go on where the next value starts.
	 */
	private static List<String> splitReadingToLastComma(String... chunks) {
		List<String> out = new ArrayList<>();
		split(new JsonElementSplitter(-1, true), recorder(out, (bytes, offset, length) -> {
			int comma = new String(bytes, offset, length, StandardCharsets.ISO_8859_1).lastIndexOf(',');
			if (comma <= 0) {
				return offset + 1;
			}
			out.add("ahead:" + new String(bytes, offset + 1, comma - 1, StandardCharsets.UTF_8));
			int next = offset + comma + 1;
			while (next < offset + length && bytes[next] == ' ') {
				next++;
			}
			return next;
		}), chunks);
		return out;
	}

	/** Split with regions whose parser reads at most the given number of values ahead. */
	private static List<String> splitReadingAhead(int valuesRead, String... chunks) {
		List<String> out = new ArrayList<>();
		split(new JsonElementSplitter(-1, true),
				recorder(out, (bytes, offset, length) -> readAhead(valuesRead, out, bytes, offset, length)), chunks);
		return out;
	}

	private static int readAhead(int valuesRead, List<String> out, byte[] bytes, int offset, int length) {
		List<String> read = new ArrayList<>();
		int resumeAt = offset + 1;
		try (tools.jackson.core.JsonParser parser = JSON.createParser(bytes, offset, length)) {
			parser.nextToken();
			while (true) {
				tools.jackson.core.JsonToken token = parser.nextToken();
				int start = offset + (int) parser.currentTokenLocation().getByteOffset();
				if (token == tools.jackson.core.JsonToken.END_ARRAY) {
					resumeAt = start;
					break;
				}
				if (read.size() == valuesRead) {
					resumeAt = start;
					break;
				}
				parser.skipChildren();
				int end = offset + (int) parser.currentLocation().getByteOffset();
				read.add(new String(bytes, start, end - start, StandardCharsets.UTF_8));
				if (end == offset + length) {
					// Maybe cut: not read, as the decoder's parser would not take it.
					read.remove(read.size() - 1);
					resumeAt = start;
					break;
				}
			}
		}
		catch (tools.jackson.core.JacksonException ex) {
			// Cut by the end of the chunk: what was read so far counts.
		}
		out.add("ahead:" + String.join(",", read));
		return resumeAt;
	}

	private static List<String> split(String... chunks) {
		List<String> out = new ArrayList<>();
		split(new JsonElementSplitter(-1, false), recorder(out), chunks);
		return out;
	}

	private static void split(JsonElementSplitter splitter, JsonElementSplitter.Regions regions, String... chunks) {
		for (String chunk : chunks) {
			splitter.feed(chunk(chunk), regions);
		}
		splitter.end(regions);
	}

	private static org.springframework.core.io.buffer.DataBuffer chunk(String content) {
		return DefaultDataBufferFactory.sharedInstance.wrap(content.getBytes(StandardCharsets.UTF_8));
	}

	/** Regions that record what they are handed, and read nothing ahead. */
	private static JsonElementSplitter.Regions recorder(List<String> out) {
		return recorder(out, (bytes, offset, length) -> offset + 1);
	}

	/** Regions that record what they are handed, and read ahead as told. */
	private static JsonElementSplitter.Regions recorder(List<String> out, LeadingArrayValues leadingArrayValues) {
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
			public int leadingArrayValues(byte[] bytes, int offset, int length) {
				return leadingArrayValues.read(bytes, offset, length);
			}

			@Override
			public void checkIncomplete(byte[] bytes, int offset, int length) {
				out.add("incomplete:" + new String(bytes, offset, length, StandardCharsets.UTF_8));
			}

		};
	}

	/** {@link JsonElementSplitter.Regions#leadingArrayValues}, on its own. */
	@FunctionalInterface
	private interface LeadingArrayValues {

		int read(byte[] bytes, int offset, int length);

	}

}
