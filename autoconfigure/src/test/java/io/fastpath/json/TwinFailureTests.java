package io.fastpath.json;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

import io.fastpath.codec.ReadListener;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.RecordingLog;
import org.apache.commons.logging.Log;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.DeserializationConfig;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.JacksonModule;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.deser.ValueDeserializerModifier;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

import org.springframework.core.ResolvableType;
import org.springframework.core.codec.CodecException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.MediaType;
import org.springframework.http.codec.json.JacksonJsonDecoder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests of what Fastpath does when the twin of the application's mapper fails where the
 * mapper itself would not: the twin's module is planted to fail as Blackbird does across
 * class loaders (an {@link IllegalAccessError}), while its reader is built or at the first
 * value it reads.
 */
class TwinFailureTests {

	private static final ResolvableType LINE = ResolvableType.forClass(Line.class);

	private final RecordingLog log = new RecordingLog();

	private final LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();

	@Test
	void wholeValueIsReadWithTheApplicationsMapperWhenTheTwinFailsToBuildItsReaderAndTheLogWarnsOnce() {
		FastpathJsonDecoder decoder = decoder(TwinFailureTests::failingToBuild);
		for (int i = 0; i < 3; i++) {
			assertThat(decodeToMono(decoder, "{\"sku\":\"a\"}")).isEqualTo(new Line("a"));
		}
		assertThat(this.log.warnings).singleElement().asString().contains(Line.class.getName());
		this.factory.assertNoLeaks();
	}

	@Test
	void wholeValueIsReadWithTheApplicationsMapperWhenTheTwinFailsAtItsFirstReadAndTheLogWarnsOnce() {
		FastpathJsonDecoder decoder = decoder(TwinFailureTests::failingToRead);
		for (int i = 0; i < 3; i++) {
			assertThat(decodeToMono(decoder, "{\"sku\":\"a\"}")).isEqualTo(new Line("a"));
		}
		assertThat(this.log.warnings).singleElement().asString().contains(Line.class.getName());
		this.factory.assertNoLeaks();
	}

	@Test
	void streamIsReadWithTheApplicationsMapperWhenTheTwinFailsToBuildItsReader() {
		FastpathJsonDecoder decoder = decoder(TwinFailureTests::failingToBuild);
		for (int i = 0; i < 3; i++) {
			assertThat(decode(decoder, "[{\"sku\":\"a\"},{\"sku\":\"b\"}]").collectList().block())
				.containsExactly(new Line("a"), new Line("b"));
		}
		assertThat(this.log.warnings).hasSize(1);
		this.factory.assertNoLeaks();
	}

	@Test
	void streamWhoseTwinFailsAtItsFirstReadFailsAsACodecErrorAndTheNextStreamIsReadWithTheApplicationsMapper() {
		// A stream cannot read a value again once it failed: only the next one falls back.
		FastpathJsonDecoder decoder = decoder(TwinFailureTests::failingToRead);
		assertThatExceptionOfType(CodecException.class)
			.isThrownBy(() -> decode(decoder, "[{\"sku\":\"a\"},{\"sku\":\"b\"}]").collectList().block())
			.withRootCauseInstanceOf(IllegalAccessError.class);
		assertThat(decode(decoder, "[{\"sku\":\"a\"},{\"sku\":\"b\"}]").collectList().block())
			.containsExactly(new Line("a"), new Line("b"));
		assertThat(this.log.warnings).hasSize(1);
		this.factory.assertNoLeaks();
	}

	@Test
	void applicationErrorsAreNotTheTwinsAndDoNotFallBack() {
		FastpathJsonDecoder decoder = decoder(() -> new SimpleModule("throws").addDeserializer(Line.class,
				new ValueDeserializer<Line>() {
					@Override
					public Line deserialize(JsonParser parser, DeserializationContext context) {
						throw new IllegalArgumentException("the application's own");
					}
				}));
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> decodeToMono(decoder, "{\"sku\":\"a\"}"));
		assertThat(this.log.warnings).isEmpty();
		this.factory.assertNoLeaks();
	}

	@Test
	void mapperThatCannotBeTwinnedIsToldAtInfoOnceNotPerMapper() {
		BlackbirdTwins twins = new BlackbirdTwins(BlackbirdTwins.Use.READING, this.log.proxy(), SimpleModule::new);
		for (int i = 0; i < 3; i++) {
			JsonMapper mapper = new CustomMapper();
			assertThat(twins.mapperFor(mapper, Line.class)).isSameAs(mapper);
		}
		assertThat(this.log.infos).singleElement().asString().contains(CustomMapper.class.getName());
	}

	private FastpathJsonDecoder decoder(Supplier<JacksonModule> twinModule) {
		return FastpathJsonDecoder.from(new JacksonJsonDecoder(JsonMapper.builder().build()),
				new BlackbirdTwins(BlackbirdTwins.Use.READING, this.log.proxy(), twinModule), ReadListener.NONE);
	}

	private Object decodeToMono(FastpathJsonDecoder decoder, String json) {
		return decoder.decodeToMono(body(json), LINE, MediaType.APPLICATION_JSON, null).block();
	}

	private Flux<Object> decode(FastpathJsonDecoder decoder, String json) {
		return decoder.decode(body(json), LINE, MediaType.APPLICATION_JSON, null);
	}

	/** The body in two buffers, so that a whole value takes the multi-buffer path. */
	private Flux<DataBuffer> body(String json) {
		byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
		int half = bytes.length / 2;
		// Each buffer made when asked for: none is left unreleased when the body is cancelled.
		return Flux.just(Arrays.copyOfRange(bytes, 0, half), Arrays.copyOfRange(bytes, half, bytes.length))
			.map(this.factory::wrap);
	}

	/** A module that fails as Blackbird does when it cannot reach a type's members. */
	private static JacksonModule failingToBuild() {
		return new SimpleModule("fails-to-build").setDeserializerModifier(new ValueDeserializerModifier() {
			@Override
			public ValueDeserializer<?> modifyDeserializer(DeserializationConfig config,
					BeanDescription.Supplier description, ValueDeserializer<?> deserializer) {
				if (description.getBeanClass() == Line.class) {
					throw new IllegalAccessError("planted: cannot access " + Line.class.getName());
				}
				return deserializer;
			}
		});
	}

	/** A module whose deserializer fails as a generated accessor that cannot link does. */
	private static JacksonModule failingToRead() {
		return new SimpleModule("fails-to-read").addDeserializer(Line.class, new ValueDeserializer<Line>() {
			@Override
			public Line deserialize(JsonParser parser, DeserializationContext context) {
				throw new IllegalAccessError("planted: cannot access " + Line.class.getName());
			}
		});
	}

	record Line(String sku) {
	}

	static class CustomMapper extends JsonMapper {

	}

}
