package io.fastpath.codec;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.core.codec.StringDecoder;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.ServerCodecConfigurer.ServerDefaultCodecs;
import org.springframework.http.codec.json.JacksonJsonEncoder;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.test.web.reactive.server.HttpHandlerConnector;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DecoratingServerCodecConfigurer}.
 */
class DecoratingServerCodecConfigurerTests {

	private static final HttpMessageReader<String> marker = PrependMarker.marker;

	private static final HttpMessageReaderDecorator prependMarker = new PrependMarker();

	@Test
	void readersAreTheDelegatesDecoratedInOrder() {
		HttpMessageReaderDecorator dropFirst = (readers) -> readers.subList(1, readers.size());
		ServerCodecConfigurer delegate = ServerCodecConfigurer.create();
		ServerCodecConfigurer decorating = new DecoratingServerCodecConfigurer(delegate,
				List.of(prependMarker, dropFirst));
		assertThat(decorating.getReaders()).hasSameSizeAs(delegate.getReaders()).doesNotContain(marker);
		ServerCodecConfigurer reversed = new DecoratingServerCodecConfigurer(delegate, List.of(dropFirst, prependMarker));
		assertThat(reversed.getReaders()).startsWith(marker);
	}

	@Test
	void configurationGoesToTheDelegateAndShowsInDecoratedReaders() {
		ServerCodecConfigurer delegate = ServerCodecConfigurer.create();
		ServerCodecConfigurer decorating = new DecoratingServerCodecConfigurer(delegate, List.of());
		decorating.defaultCodecs().maxInMemorySize(1234);
		assertThat(stringDecoders(decorating.getReaders()))
			.allSatisfy((decoder) -> assertThat(decoder.getMaxInMemorySize()).isEqualTo(1234));
		assertThat(decorating.getWriters()).hasSameSizeAs(delegate.getWriters());
	}

	@Test
	void handsOutTheSameReadersDecoratedOnceWhileTheConfigurationIsUnchanged() {
		CountingDecorator counting = new CountingDecorator();
		ServerCodecConfigurer decorating = new DecoratingServerCodecConfigurer(ServerCodecConfigurer.create(),
				List.of(counting));
		List<HttpMessageReader<?>> first = decorating.getReaders();
		for (int i = 0; i < 10; i++) {
			assertThat(decorating.getReaders()).containsExactlyElementsOf(first);
		}
		assertThat(counting.decorations).hasValue(1);
	}

	@Test
	void handsOutAFreshMutableListEachTimeAsStockDoes() {
		ServerCodecConfigurer stock = ServerCodecConfigurer.create();
		List<HttpMessageReader<?>> stockReaders = stock.getReaders();
		stockReaders.add(marker);
		assertThat(stock.getReaders()).doesNotContain(marker);
		ServerCodecConfigurer decorating = new DecoratingServerCodecConfigurer(ServerCodecConfigurer.create(),
				List.of());
		List<HttpMessageReader<?>> first = decorating.getReaders();
		first.add(0, marker);
		first.remove(first.size() - 1);
		assertThat(decorating.getReaders()).isNotSameAs(first).doesNotContain(marker);
		assertThat(decorating.getReaders()).isNotSameAs(decorating.getReaders());
	}

	@Test
	void handsOutAFreshMutableListOfWritersEachTimeAsStockDoes() {
		HttpMessageWriter<?> writer = ServerCodecConfigurer.create().getWriters().get(0);
		ServerCodecConfigurer decorating = new DecoratingServerCodecConfigurer(ServerCodecConfigurer.create(),
				List.of(), List.of());
		List<HttpMessageWriter<?>> first = decorating.getWriters();
		first.add(0, writer);
		assertThat(decorating.getWriters()).isNotSameAs(first).doesNotContain(writer);
	}

	@Test
	void readersReflectDefaultCodecsChangedAfterTheyWereHandedOut() {
		ServerCodecConfigurer decorating = new DecoratingServerCodecConfigurer(ServerCodecConfigurer.create(),
				List.of(prependMarker));
		List<HttpMessageReader<?>> before = decorating.getReaders();
		decorating.defaultCodecs().maxInMemorySize(4321);
		List<HttpMessageReader<?>> after = decorating.getReaders();
		assertThat(after).isNotSameAs(before).startsWith(marker);
		assertThat(stringDecoders(before)).noneSatisfy((decoder) -> assertThat(decoder.getMaxInMemorySize()).isEqualTo(4321));
		assertThat(stringDecoders(after.subList(1, after.size()))).isNotEmpty()
			.allSatisfy((decoder) -> assertThat(decoder.getMaxInMemorySize()).isEqualTo(4321));
		assertThat(decorating.getReaders()).containsExactlyElementsOf(after);
	}

	@Test
	void readersReflectCustomCodecsRegisteredAfterTheyWereHandedOut() {
		ServerCodecConfigurer decorating = new DecoratingServerCodecConfigurer(ServerCodecConfigurer.create(),
				List.of());
		decorating.getReaders();
		HttpMessageReader<String> custom = new DecoderHttpMessageReader<>(StringDecoder.textPlainOnly());
		decorating.customCodecs().register(custom);
		assertThat(decorating.getReaders()).contains(custom);
	}

	@Test
	void defaultConfigIsAppliedToCustomCodecsWhenItChangesAfterReadersWereHandedOut() {
		ServerCodecConfigurer decorating = new DecoratingServerCodecConfigurer(ServerCodecConfigurer.create(),
				List.of());
		StringDecoder custom = StringDecoder.textPlainOnly();
		decorating.customCodecs().registerWithDefaultConfig(custom);
		decorating.getReaders();
		decorating.defaultCodecs().maxInMemorySize(777);
		assertThat(decorating.getReaders()).anySatisfy((reader) -> assertThat(reader)
			.isInstanceOfSatisfying(DecoderHttpMessageReader.class, (decoderReader) -> {
				assertThat(decoderReader.getDecoder()).isSameAs(custom);
				assertThat(custom.getMaxInMemorySize()).isEqualTo(777);
			}));
	}

	@Test
	void readersReflectDefaultsUnregisteredAfterTheyWereHandedOut() {
		ServerCodecConfigurer decorating = new DecoratingServerCodecConfigurer(ServerCodecConfigurer.create(),
				List.of());
		assertThat(decorating.getReaders()).isNotEmpty();
		decorating.registerDefaults(false);
		assertThat(decorating.getReaders()).isEmpty();
	}

	@Test
	void everyDefaultCodecsMethodIsPassedOnByTheConfigurerItself() {
		// An interface method inherited as is (a default method added by a later Spring
		// Framework, say) would bypass the delegate, or configure it without the readers
		// being built again.
		ServerDefaultCodecs codecs = new DecoratingServerCodecConfigurer(ServerCodecConfigurer.create(), List.of())
			.defaultCodecs();
		List<String> inherited = new ArrayList<>();
		for (Method method : ServerDefaultCodecs.class.getMethods()) {
			if (Modifier.isStatic(method.getModifiers())) {
				continue;
			}
			try {
				codecs.getClass().getDeclaredMethod(method.getName(), method.getParameterTypes());
			}
			catch (NoSuchMethodException ex) {
				inherited.add(method.toString());
			}
		}
		assertThat(inherited).isEmpty();
	}

	@Test
	void formRequestsAfterTheFirstSeeALimitConfiguredLater() {
		CountingDecorator counting = new CountingDecorator();
		DecoratingServerCodecConfigurer decorating = new DecoratingServerCodecConfigurer(
				ServerCodecConfigurer.create(), List.of(counting));
		HttpHandler handler = WebHttpHandlerBuilder
			.webHandler((exchange) -> exchange.getFormData()
				.flatMap((form) -> exchange.getResponse()
					.writeWith(Mono.just(exchange.getResponse().bufferFactory().wrap(form.toString().getBytes())))))
			.codecConfigurer(decorating)
			.exceptionHandler((exchange, ex) -> {
				HttpStatus status = (ex instanceof DataBufferLimitException) ? HttpStatus.PAYLOAD_TOO_LARGE
						: HttpStatus.INTERNAL_SERVER_ERROR;
				exchange.getResponse().setStatusCode(status);
				return exchange.getResponse().setComplete();
			})
			.build();
		WebTestClient client = WebTestClient.bindToServer(new HttpHandlerConnector(handler)).build();
		String form = "name=" + "x".repeat(100);
		for (int i = 0; i < 3; i++) {
			postForm(client, form).expectStatus().isOk().expectBody(String.class).isEqualTo("{name=[" + "x".repeat(100) + "]}");
		}
		assertThat(counting.decorations).hasValue(1);
		decorating.defaultCodecs().maxInMemorySize(50);
		postForm(client, form).expectStatus().isEqualTo(HttpStatus.PAYLOAD_TOO_LARGE);
		postForm(client, "name=short").expectStatus().isOk();
		assertThat(counting.decorations).hasValue(2);
		assertThat(decorating.getReaders()).filteredOn(FormHttpMessageReader.class::isInstance)
			.singleElement()
			.satisfies((reader) -> assertThat(((FormHttpMessageReader) reader).getMaxInMemorySize()).isEqualTo(50));
	}

	@Test
	void cloneIsDecoratedToo() {
		ServerCodecConfigurer decorating = new DecoratingServerCodecConfigurer(ServerCodecConfigurer.create(),
				List.of(prependMarker));
		ServerCodecConfigurer clone = decorating.clone();
		assertThat(clone).isInstanceOf(DecoratingServerCodecConfigurer.class);
		assertThat(clone.getReaders()).startsWith(marker);
	}

	@Test
	void cloneKeepsItsOwnReaders() {
		ServerCodecConfigurer decorating = new DecoratingServerCodecConfigurer(ServerCodecConfigurer.create(),
				List.of());
		List<HttpMessageReader<?>> original = decorating.getReaders();
		ServerCodecConfigurer clone = decorating.clone();
		clone.defaultCodecs().maxInMemorySize(999);
		assertThat(decorating.getReaders()).containsExactlyElementsOf(original);
		assertThat(stringDecoders(clone.getReaders()))
			.allSatisfy((decoder) -> assertThat(decoder.getMaxInMemorySize()).isEqualTo(999));
	}

	private static WebTestClient.ResponseSpec postForm(WebTestClient client, String form) {
		return client.post().contentType(MediaType.APPLICATION_FORM_URLENCODED).bodyValue(form).exchange();
	}

	private static List<StringDecoder> stringDecoders(List<HttpMessageReader<?>> readers) {
		return readers.stream()
			.filter(DecoderHttpMessageReader.class::isInstance)
			.map((reader) -> ((DecoderHttpMessageReader<?>) reader).getDecoder())
			.filter(StringDecoder.class::isInstance)
			.map(StringDecoder.class::cast)
			.toList();
	}

	/** Counts how often it is asked to decorate. */
	private static final class CountingDecorator implements HttpMessageReaderDecorator {

		final AtomicInteger decorations = new AtomicInteger();

		@Override
		public List<HttpMessageReader<?>> decorate(List<HttpMessageReader<?>> readers) {
			this.decorations.incrementAndGet();
			return readers;
		}

	}

	@Test
	void writersAreTheDelegatesDecoratedOnceAndAgainAfterAConfigurationChange() {
		AtomicInteger decorations = new AtomicInteger();
		HttpMessageWriterDecorator dropFirst = (writers) -> {
			decorations.incrementAndGet();
			return writers.subList(1, writers.size());
		};
		ServerCodecConfigurer delegate = ServerCodecConfigurer.create();
		ServerCodecConfigurer decorating = new DecoratingServerCodecConfigurer(delegate, List.of(), List.of(dropFirst));
		List<HttpMessageWriter<?>> first = decorating.getWriters();
		assertThat(first).hasSize(delegate.getWriters().size() - 1);
		assertThat(decorating.getWriters()).containsExactlyElementsOf(first);
		assertThat(decorations).hasValue(1);
		decorating.defaultCodecs().jacksonJsonEncoder(new JacksonJsonEncoder());
		assertThat(decorating.getWriters()).isNotEqualTo(first);
		assertThat(decorations).hasValue(2);
		assertThat(decorating.clone().getWriters()).hasSize(delegate.getWriters().size() - 1);
	}

}
