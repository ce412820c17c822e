package io.fastpath.json;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.fastpath.test.LeakTrackingDataBufferFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.Decoder;
import org.springframework.http.MediaType;
import org.springframework.http.codec.json.JacksonJsonDecoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Top-level values of a stream ({@code application/x-ndjson}) that touch without
 * whitespace are split, or rejected, exactly where the stock tokenizer (Jackson's
 * non-blocking parser) splits or rejects them: an integer ends at any delimiter, a number
 * with a fraction or exponent needs whitespace after it, a literal needs whitespace or a
 * string, a lone zero needs a delimiter other than an opening bracket. Found by the fuzz
 * suite ({@code 5e0"x"}, {@code 0[}).
 */
class RootValueSeparationTests {

	private final LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();

	@AfterEach
	void noLeaks() {
		this.factory.assertNoLeaks();
	}

	@ParameterizedTest
	@ValueSource(strings = { "5\"x\"", "-5\"x\"", "0\"x\"", "5[1]", "5{}", "1-2", "false-1", "true\"x\"", "null\"x\"",
			"5e0 \"x\"", "5.5\"x\"", "-5.5\"x\"", "5e0\"x\"", "5E1\"x\"", "5e+1\"x\"", "5e0[1]", "0.0[1]", "5e0{}",
			"1.5-2", "1e5-2", "5E-1-2", "1e5]", "1.5}", "1,2", "1e1,2", "true[1]", "true{}", "true,1", "true]",
			"null[1]", "false1", "truex", "0[1]", "-0[1]", "0{}", "0:1", "0]", "0}", "0,1", "10[1]",
			"12\"x\"\n3.25 4" })
	void touchingRootValuesAreReadAsStockReadsThem(String body) {
		for (ResolvableType type : new ResolvableType[] { ResolvableType.forClass(String.class),
				ResolvableType.forClass(Object.class) }) {
			DecoderOutcome expected = decode(new JacksonJsonDecoder(JsonMapper.builder().build()), body, type);
			DecoderOutcome actual = decode(new FastpathJsonDecoder(JsonMapper.builder().build()), body, type);
			assertThat(expected.differenceFrom(actual)).as(body + " as " + type).isNull();
		}
	}

	@Test
	void negativeZeroReadAsAStringKeepsItsTextAsPlainJacksonReadsIt() {
		// Stock disagrees with itself here: its Flux path buffers the token as the number 0
		// and answers "0", its Mono path and plain Jackson read the text "-0". Plain Jackson
		// is the reference.
		JsonMapper mapper = JsonMapper.builder().build();
		List<String> expected = List.of(mapper.readValue("-0", String.class), mapper.readValue("\"x\"", String.class));
		DecoderOutcome actual = decode(new FastpathJsonDecoder(mapper), "-0\"x\"", ResolvableType.forClass(String.class));
		assertThat(actual.failed()).isFalse();
		assertThat(actual.values()).isEqualTo(expected).containsExactly("-0", "x");
	}

	private DecoderOutcome decode(Decoder<?> decoder, String body, ResolvableType type) {
		LeakTrackingDataBufferFactory factory = (decoder instanceof FastpathJsonDecoder) ? this.factory
				: this.factory.forStock();
		return DecoderOutcome.of(() -> decoder.decode(
				Flux.just(factory.bufferOf(body.getBytes(StandardCharsets.UTF_8))), type,
				MediaType.APPLICATION_NDJSON, null));
	}

}
