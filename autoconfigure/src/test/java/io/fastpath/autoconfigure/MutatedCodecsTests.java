package io.fastpath.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.fastpath.codec.DecoratingServerCodecConfigurer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.mock.http.client.reactive.MockClientHttpRequest;
import org.springframework.mock.http.client.reactive.MockClientHttpResponse;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * The codecs of a copy, with Fastpath as on stock (each test runs on both): a client
 * mutated from another keeps its codec configuration to itself, a limit or a JSON decoder
 * set on the copy is read through the copy's readers, and the original reads as it did;
 * a server codec configurer cloned from another shares what stock's clone shares.
 */
class MutatedCodecsTests {

	/** A JSON body of a few kilobytes: within the default limit, past the copies' limit. */
	private static final String BODY = "{\"fullName\":\"" + "a".repeat(4000) + "\"}";

	private static final int SMALL_LIMIT = 1024;

	private final ReactiveWebApplicationContextRunner contextRunner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, CodecsAutoConfiguration.class,
				WebFluxAutoConfiguration.class, WebClientAutoConfiguration.class, FastpathAutoConfiguration.class,
				FastpathWebFluxAutoConfiguration.class, FastpathWebClientAutoConfiguration.class,
				FastpathJacksonAutoConfiguration.class));

	private final ReactiveWebApplicationContextRunner clientOnly = new ReactiveWebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WebClientAutoConfiguration.class, FastpathAutoConfiguration.class,
				FastpathWebClientAutoConfiguration.class));

	/**
	 * Without Spring Boot's codec customizers, as with them: no customizer gives each
	 * client a JSON decoder of its own then, and the client's codecs are the defaults.
	 */
	@ParameterizedTest(name = "fastpath.enabled={0}, Boot's codec customizers: {1}")
	@CsvSource({ "true, true", "false, true", "true, false", "false, false" })
	void aLimitSetOnAMutatedClientIsItsOwn(boolean fastpath, boolean bootsCodecCustomizers) {
		ReactiveWebApplicationContextRunner contextRunner = bootsCodecCustomizers ? this.contextRunner
				: this.clientOnly;
		contextRunner.withPropertyValues("fastpath.enabled=" + fastpath).run((context) -> {
			WebClient original = context.getBean(WebClient.Builder.class).clientConnector(answering(BODY)).build();
			assertThat(read(original).fullName()).hasSize(4000);
			WebClient mutated = original.mutate()
				.codecs((codecs) -> codecs.defaultCodecs().maxInMemorySize(SMALL_LIMIT))
				.build();
			assertTooLarge(mutated);
			assertThat(read(original).fullName()).hasSize(4000);
			WebClient mutatedAgain = mutated.mutate()
				.codecs((codecs) -> codecs.defaultCodecs().maxInMemorySize(2 * BODY.length()))
				.build();
			assertThat(read(mutatedAgain).fullName()).hasSize(4000);
			assertTooLarge(mutated);
		});
	}

	@ParameterizedTest(name = "fastpath.enabled={0}")
	@ValueSource(booleans = { true, false })
	void aJsonDecoderSetOnAMutatedClientIsItsOwn(boolean fastpath) {
		this.contextRunner.withPropertyValues("fastpath.enabled=" + fastpath).run((context) -> {
			String snakeCase = "{\"full_name\":\"a\"}";
			WebClient original = context.getBean(WebClient.Builder.class)
				.clientConnector(answering(snakeCase))
				.build();
			JsonMapper snakeCaseMapper = JsonMapper.builder()
				.propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
				.build();
			WebClient mutated = original.mutate()
				.codecs((codecs) -> codecs.defaultCodecs().jacksonJsonDecoder(new JacksonJsonDecoder(snakeCaseMapper)))
				.build();
			assertThat(read(mutated).fullName()).isEqualTo("a");
			assertThat(read(original).fullName()).isNull();
		});
	}

	/**
	 * Stock's clone of the server's configurer shares the JSON decoder that Spring Boot
	 * set on the original: a limit set on the clone is applied to that decoder, and
	 * reaches the original. Fastpath's clone does what stock's does.
	 */
	@Test
	void aLimitSetOnAClonedServerConfigurerReachesTheOriginalAsOnStock() {
		List<Integer> stock = limitsOfClonedConfigurer(false);
		assertThat(stock.get(1)).isEqualTo(SMALL_LIMIT);
		assertThat(limitsOfClonedConfigurer(true)).isEqualTo(stock);
	}

	/**
	 * Clone the server's configurer and set a limit on the clone's codecs: the JSON
	 * decoder's limit of the original before, of the clone, and of the original after.
	 */
	private List<Integer> limitsOfClonedConfigurer(boolean fastpath) {
		List<Integer> limits = new ArrayList<>();
		this.contextRunner.withPropertyValues("fastpath.enabled=" + fastpath).run((context) -> {
			ServerCodecConfigurer original = context.getBean(ServerCodecConfigurer.class);
			assertThat(original instanceof DecoratingServerCodecConfigurer).isEqualTo(fastpath);
			limits.add(jsonDecoder(original.getReaders()).getMaxInMemorySize());
			ServerCodecConfigurer clone = original.clone();
			clone.defaultCodecs().maxInMemorySize(SMALL_LIMIT);
			limits.add(jsonDecoder(clone.getReaders()).getMaxInMemorySize());
			limits.add(jsonDecoder(original.getReaders()).getMaxInMemorySize());
		});
		return limits;
	}

	/** A connector that answers every request with the given JSON, in chunks of 100 bytes. */
	private static ClientHttpConnector answering(String json) {
		return (method, uri, requestCallback) -> {
			MockClientHttpRequest request = new MockClientHttpRequest(method, uri);
			return requestCallback.apply(request).then(Mono.fromSupplier(() -> {
				MockClientHttpResponse response = new MockClientHttpResponse(HttpStatus.OK);
				response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
				byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
				response.setBody(Flux.range(0, (bytes.length + 99) / 100).map((chunk) -> buffer(bytes, chunk * 100)));
				return response;
			}));
		};
	}

	private static DataBuffer buffer(byte[] bytes, int from) {
		int to = Math.min(bytes.length, from + 100);
		return DefaultDataBufferFactory.sharedInstance.wrap(Arrays.copyOfRange(bytes, from, to));
	}

	private static void assertTooLarge(WebClient client) {
		assertThatException().isThrownBy(() -> read(client)).withRootCauseInstanceOf(DataBufferLimitException.class);
	}

	private static Named read(WebClient client) {
		Named named = client.get().uri("http://localhost/named").retrieve().bodyToMono(Named.class).block();
		assertThat(named).isNotNull();
		return named;
	}

	/** The decoder of the JSON reader, Fastpath's or stock's, whose limit it reports. */
	private static JacksonJsonDecoder jsonDecoder(List<HttpMessageReader<?>> readers) {
		return readers.stream()
			.filter((reader) -> reader.canRead(ResolvableType.forClass(Map.class), MediaType.APPLICATION_JSON))
			.map((reader) -> ((DecoderHttpMessageReader<?>) reader).getDecoder())
			.map(JacksonJsonDecoder.class::cast)
			.findFirst()
			.orElseThrow();
	}

	/** A value with one property whose name has two words. */
	record Named(String fullName) {
	}

}
