package io.fastpath.json;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link FedParser}: each region reads as with a parser created on it.
 *
 * @author Fastpath
 */
class FedParserTests {

	private final ObjectReader reader = JsonMapper.builder().build().readerFor(Long.class);

	private final FedParser fed = new FedParser(this.reader);

	@Test
	void regionsReadToTheirEndAreReadOneAfterTheOtherByOneParser() {
		JsonParser first = this.fed.feed(region("[1, 2 ]"), 1, 7);
		assertThat(tokens(first)).containsExactly("[", "1", "2", "]");
		assertThat(this.fed.closingBracket()).as("where the array closes").isEqualTo(7);
		assertThat(this.fed.endsRegion()).isTrue();
		this.fed.finish();
		JsonParser second = this.fed.feed(region("[\"a]\",true] \n"), 1, 13);
		assertThat(second).isSameAs(first);
		assertThat(tokens(second)).containsExactly("[", "a]", "true", "]");
		assertThat(this.fed.closingBracket()).as("where the array closes").isEqualTo(11);
		assertThat(this.fed.endsRegion()).as("whitespace after the array").isTrue();
		this.fed.finish();
		assertThat(this.fed.feed(region("[3]"), 1, 3)).isSameAs(first);
	}

	@ParameterizedTest
	@ValueSource(strings = { "[1,23", "[1,2", "[1,", "[1,tr", "[1,\"ab", "[1,{\"a\":1", "[1,2]]", "[1,x]", "[01]" })
	void endOfARegionIsTheEndOfInputAsForAParserCreatedOnIt(String json) {
		byte[] bytes = region(json);
		JsonParser created = this.reader.createParser(bytes, 1, json.length());
		created.nextToken();
		List<String> expected = new ArrayList<>();
		RuntimeException expectedError = readAll(created, expected);
		List<String> actual = new ArrayList<>();
		RuntimeException actualError = readAll(this.fed.feed(bytes, 1, json.length()), actual);
		assertThat(actual).as("tokens").isEqualTo(expected);
		// The wording may differ: stock's parser is the non-blocking one too.
		assertThat(expectedError).as("error of a parser created on the region").isInstanceOf(StreamReadException.class);
		assertThat(actualError).as("error").isInstanceOf(StreamReadException.class);
		this.fed.finish();
		JsonParser next = this.fed.feed(region("[3]"), 1, 3);
		assertThat(tokens(next)).as("the next region, with a new parser").containsExactly("[", "3", "]");
	}

	@ParameterizedTest
	@ValueSource(strings = { "[1] [2]", "[1] 2", "[1]]", "[1] x", "[1] \"a]" })
	void regionWithMoreAfterItsArrayIsNotReadToItsEnd(String json) {
		JsonParser first = this.fed.feed(region(json), 1, json.length());
		assertThat(tokens(first)).containsExactly("[", "1", "]");
		assertThat(this.fed.closingBracket()).as("where the array closes").isEqualTo(json.indexOf(']') + 1);
		assertThat(this.fed.endsRegion()).isFalse();
		this.fed.finish();
		JsonParser second = this.fed.feed(region("[3]"), 1, 3);
		assertThat(second).isNotSameAs(first);
		assertThat(tokens(second)).containsExactly("[", "3", "]");
	}

	@Test
	void regionLeftBeforeItsArrayClosesDropsTheParser() {
		JsonParser first = this.fed.feed(region("[1,2,3]"), 1, 7);
		first.nextToken();
		first.nextToken();
		this.fed.finish();
		assertThat(this.fed.feed(region("[3]"), 1, 3)).isNotSameAs(first);
	}

	/** The bytes of the JSON after one byte that is not part of it: regions lie inside larger arrays. */
	private static byte[] region(String json) {
		return ("x" + json + "y").getBytes(StandardCharsets.UTF_8);
	}

	/** The region's tokens up to its array's end, as text, from its opening bracket. */
	private static List<String> tokens(JsonParser parser) {
		List<String> tokens = new ArrayList<>();
		tokens.add(parser.getString());
		while (FedParser.nextToken(parser) != JsonToken.END_ARRAY) {
			tokens.add(parser.getString());
		}
		tokens.add(parser.getString());
		return tokens;
	}

	/** Read every token to the end of input. */
	private static @Nullable RuntimeException readAll(JsonParser parser, List<String> tokens) {
		try {
			while (FedParser.nextToken(parser) != null) {
				tokens.add(parser.currentToken() + " " + parser.getString());
			}
			return null;
		}
		catch (RuntimeException ex) {
			return ex;
		}
	}

}
