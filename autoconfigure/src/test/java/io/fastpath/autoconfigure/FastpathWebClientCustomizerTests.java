package io.fastpath.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ClientCodecConfigurer;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.http.codec.json.JacksonJsonEncoder;
import org.springframework.web.reactive.function.client.ExchangeStrategies;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code WebClient.Builder} that Fastpath's customizer decorated keeps its codecs to
 * itself, as a stock builder does: what one builder's codec configuration does to its
 * JSON encoder and decoder (a mapper registered for a type, a limit) reaches no other
 * client, neither another builder the customizer decorated nor a client on Spring's
 * default strategies. Spring's default strategies share their codec instances with every
 * copy made of them.
 */
class FastpathWebClientCustomizerTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(FastpathAutoConfiguration.class, FastpathWebClientAutoConfiguration.class));

	@Test
	void aMapperRegisteredOnOneBuildersJsonEncoderReachesNoOtherClient() {
		this.contextRunner.run((context) -> {
			FastpathWebClientCustomizer customizer = context.getBean(FastpathWebClientCustomizer.class);
			List<HttpMessageWriter<?>> configured = new ArrayList<>();
			WebClient.Builder first = WebClient.builder();
			customizer.customize(first);
			first.codecs((codecs) -> {
				jsonEncoder(codecs.getWriters()).registerMappersForType(Widget.class,
						(mappers) -> mappers.put(MediaType.APPLICATION_JSON, JsonMapper.builder().build()));
				configured.addAll(codecs.getWriters());
			}).build();
			assertThat(jsonEncoder(configured).getMappersForType(Widget.class)).isNotEmpty();
			assertThat(jsonEncoder(writersOf(customizer)).getMappersForType(Widget.class)).isEmpty();
			assertThat(jsonEncoder(ExchangeStrategies.withDefaults().messageWriters()).getMappersForType(Widget.class))
				.isEmpty();
		});
	}

	@Test
	void aLimitSetOnOneBuildersCodecsReachesNoOtherClient() {
		this.contextRunner.run((context) -> {
			FastpathWebClientCustomizer customizer = context.getBean(FastpathWebClientCustomizer.class);
			int defaultLimit = jsonDecoder(ExchangeStrategies.builder().build().messageReaders()).getMaxInMemorySize();
			// Spring's default strategies are the JVM's: other code may have set their limit.
			JacksonJsonDecoder defaultsDecoder = jsonDecoder(ExchangeStrategies.withDefaults().messageReaders());
			int defaultsLimit = defaultsDecoder.getMaxInMemorySize();
			List<HttpMessageReader<?>> configured = new ArrayList<>();
			WebClient.Builder first = WebClient.builder();
			customizer.customize(first);
			first.codecs((codecs) -> {
				codecs.defaultCodecs().maxInMemorySize(defaultLimit / 2);
				configured.addAll(codecs.getReaders());
			}).build();
			assertThat(jsonDecoder(configured).getMaxInMemorySize()).isEqualTo(defaultLimit / 2);
			assertThat(jsonDecoder(readersOf(customizer)).getMaxInMemorySize()).isEqualTo(defaultLimit);
			assertThat(defaultsDecoder.getMaxInMemorySize()).isEqualTo(defaultsLimit);
		});
	}

	/** The stock writers of another builder the customizer decorated, as its codecs hold them. */
	private static List<HttpMessageWriter<?>> writersOf(FastpathWebClientCustomizer customizer) {
		List<HttpMessageWriter<?>> writers = new ArrayList<>();
		configureAnother(customizer, (codecs) -> writers.addAll(codecs.getWriters()));
		return writers;
	}

	private static List<HttpMessageReader<?>> readersOf(FastpathWebClientCustomizer customizer) {
		List<HttpMessageReader<?>> readers = new ArrayList<>();
		configureAnother(customizer, (codecs) -> readers.addAll(codecs.getReaders()));
		return readers;
	}

	private static void configureAnother(FastpathWebClientCustomizer customizer,
			Consumer<ClientCodecConfigurer> configuration) {
		WebClient.Builder another = WebClient.builder();
		customizer.customize(another);
		another.codecs(configuration).build();
	}

	private static JacksonJsonEncoder jsonEncoder(List<HttpMessageWriter<?>> writers) {
		return writers.stream()
			.filter(EncoderHttpMessageWriter.class::isInstance)
			.map((writer) -> ((EncoderHttpMessageWriter<?>) writer).getEncoder())
			.filter(JacksonJsonEncoder.class::isInstance)
			.map(JacksonJsonEncoder.class::cast)
			.findFirst()
			.orElseThrow();
	}

	private static JacksonJsonDecoder jsonDecoder(List<HttpMessageReader<?>> readers) {
		return readers.stream()
			.filter(DecoderHttpMessageReader.class::isInstance)
			.map((reader) -> ((DecoderHttpMessageReader<?>) reader).getDecoder())
			.filter(JacksonJsonDecoder.class::isInstance)
			.map(JacksonJsonDecoder.class::cast)
			.findFirst()
			.orElseThrow();
	}

	record Widget(String name) {

	}

}
