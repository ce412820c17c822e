package io.fastpath.buffer;

import java.util.List;

import io.fastpath.json.FastpathJsonDecoder;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.codec.ByteArrayDecoder;
import org.springframework.core.codec.ByteBufferDecoder;
import org.springframework.core.codec.DataBufferDecoder;
import org.springframework.core.codec.Decoder;
import org.springframework.core.codec.NettyByteBufDecoder;
import org.springframework.core.codec.ResourceDecoder;
import org.springframework.core.codec.StringDecoder;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;
import org.springframework.http.codec.multipart.PartEventHttpMessageReader;
import org.springframework.http.codec.ResourceHttpMessageReader;
import org.springframework.http.codec.xml.Jaxb2XmlDecoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link WholeBodyAggregation}. The expectation is written out, reader by
 * reader, from what the README promises, not computed with
 * {@link AggregatingHttpMessageReader#supports}: a decoder wrongly supported, or wrongly
 * left out, fails here.
 */
class WholeBodyAggregationTests {

	private final WholeBodyAggregation aggregation = new WholeBodyAggregation();

	/**
	 * Spring's default server readers, in their order: the data buffer decoders, the
	 * strings and Jackson decorated in place; resources, forms, multipart and JAXB left as
	 * they are.
	 */
	@Test
	void replacesTheStockReadersThatJoinAndKeepsTheRestInPlace() {
		List<HttpMessageReader<?>> stock = ServerCodecConfigurer.create().getReaders();
		List<HttpMessageReader<?>> decorated = this.aggregation.decorate(stock);
		assertThat(decorated).extracting(WholeBodyAggregationTests::describe)
			.containsExactly("aggregating ByteArrayDecoder", "aggregating ByteBufferDecoder",
					"aggregating DataBufferDecoder", "aggregating NettyByteBufDecoder", "ResourceHttpMessageReader",
					"aggregating StringDecoder", "FormHttpMessageReader", "DefaultPartHttpMessageReader",
					"MultipartHttpMessageReader", "PartEventHttpMessageReader", "aggregating JacksonJsonDecoder",
					"DecoderHttpMessageReader of Jaxb2XmlDecoder", "aggregating StringDecoder");
		for (int i = 0; i < stock.size(); i++) {
			HttpMessageReader<?> replacement = decorated.get(i);
			if (replacement instanceof AggregatingHttpMessageReader<?> aggregating) {
				assertThat(aggregating.getDecoder()).as("decoder of reader %d", i)
					.isSameAs(((DecoderHttpMessageReader<?>) stock.get(i)).getDecoder());
			}
			else {
				assertThat(replacement).as("reader %d", i).isSameAs(stock.get(i));
			}
		}
	}

	@Test
	void decoratesReadersOfEveryDecoderWhoseWholeBodyPathIsAJoin() {
		List<Decoder<?>> joining = List.of(StringDecoder.allMimeTypes(), new ByteArrayDecoder(),
				new ByteBufferDecoder(), new DataBufferDecoder(), new NettyByteBufDecoder(),
				new JacksonJsonDecoder(JsonMapper.builder().build()), new FastpathJsonDecoder(JsonMapper.builder().build()),
				// Stock reads resources with ResourceHttpMessageReader (left alone), but the
				// decoder's own decodeToMono is a join too.
				new ResourceDecoder());
		for (Decoder<?> decoder : joining) {
			DecoderHttpMessageReader<?> reader = new DecoderHttpMessageReader<>(decoder);
			assertThat(this.aggregation.decorate(List.of(reader))).as(decoder.getClass().getSimpleName())
				.singleElement()
				.isInstanceOfSatisfying(AggregatingHttpMessageReader.class,
						(aggregating) -> assertThat(aggregating.getDecoder()).isSameAs(decoder));
		}
	}

	@Test
	void leavesReadersOfOtherDecodersAlone() {
		List<HttpMessageReader<?>> others = List.of(new DecoderHttpMessageReader<>(new Jaxb2XmlDecoder()),
				new ResourceHttpMessageReader(),
				new FormHttpMessageReader(), new DefaultPartHttpMessageReader(), new PartEventHttpMessageReader(),
				new MultipartHttpMessageReader(new DefaultPartHttpMessageReader()));
		assertThat(this.aggregation.decorate(others)).containsExactlyElementsOf(others);
	}

	/** A subclass may read differently (as ResourceHttpMessageReader does): left alone. */
	@Test
	void leavesSubclassesOfDecoderHttpMessageReaderAlone() {
		HttpMessageReader<String> subclass = new DecoderHttpMessageReader<>(StringDecoder.allMimeTypes()) {
		};
		assertThat(this.aggregation.decorate(List.of(subclass))).containsExactly(subclass);
	}

	@Test
	void leavesAlreadyDecoratedReadersAlone() {
		List<HttpMessageReader<?>> once = this.aggregation.decorate(ServerCodecConfigurer.create().getReaders());
		List<HttpMessageReader<?>> twice = this.aggregation.decorate(once);
		assertThat(twice).hasSameSizeAs(once);
		for (int i = 0; i < once.size(); i++) {
			assertThat(twice.get(i)).isSameAs(once.get(i));
		}
	}

	private static String describe(HttpMessageReader<?> reader) {
		if (reader instanceof AggregatingHttpMessageReader<?> aggregating) {
			return "aggregating " + aggregating.getDecoder().getClass().getSimpleName();
		}
		if (reader.getClass() == DecoderHttpMessageReader.class) {
			return "DecoderHttpMessageReader of "
					+ ((DecoderHttpMessageReader<?>) reader).getDecoder().getClass().getSimpleName();
		}
		return reader.getClass().getSimpleName();
	}

}
