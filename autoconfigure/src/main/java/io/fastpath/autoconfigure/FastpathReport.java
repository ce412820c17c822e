package io.fastpath.autoconfigure;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import io.fastpath.autoconfigure.FastpathEndpoint.CodecsDescriptor;
import io.fastpath.autoconfigure.FastpathEndpoint.ReplacedReader;
import io.fastpath.buffer.AggregatingHttpMessageReader;
import io.fastpath.buffer.WholeBodyAggregation;
import io.fastpath.codec.DecoratingServerCodecConfigurer;
import io.fastpath.codec.HttpMessageReaderDecorator;
import io.fastpath.codec.ReadEvent.Feature;
import io.fastpath.form.FormArgumentsWebFluxConfigurer;
import io.fastpath.form.LazyFormDecoding;
import io.fastpath.form.LazyFormHttpMessageReader;
import io.fastpath.json.JsonArrayDecoder;
import io.fastpath.json.JsonArrayDecoding;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.util.ClassUtils;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * What Fastpath does in an application, read from its beans: the active features and,
 * on the server's codecs and on Spring Boot's {@code WebClient.Builder}, the readers it
 * replaced. Shared by the {@code fastpath} endpoint and the startup log line.
 *
 * @author Fastpath
 */
final class FastpathReport {

	private static final boolean JSON_PRESENT = ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper",
			FastpathReport.class.getClassLoader());

	private static final String WEB_CLIENT_CUSTOMIZER = "org.springframework.boot.webclient.WebClientCustomizer";

	/** The builder's codecs are only listed, never used to connect. */
	private static final ClientHttpConnector NOT_CONNECTING = (method, uri, requestCallback) -> Mono
		.error(new IllegalStateException("A WebClient built to list its readers does not connect"));

	private final ListableBeanFactory beanFactory;

	FastpathReport(ListableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/**
	 * The features whose beans are present, in the order they decorate readers, and
	 * {@code form-arguments} when the controller arguments are registered.
	 */
	List<String> features() {
		List<String> features = new ArrayList<>();
		decorators().forEach((decorator) -> features.add(featureName(decorator)));
		if (this.beanFactory.getBeanNamesForType(FormArgumentsWebFluxConfigurer.class).length > 0) {
			features.add("form-arguments");
		}
		return features;
	}

	/** The readers replaced on the application's {@code ServerCodecConfigurer}. */
	CodecsDescriptor server() {
		ServerCodecConfigurer configurer = this.beanFactory.getBeanProvider(ServerCodecConfigurer.class).getIfUnique();
		if (!(configurer instanceof DecoratingServerCodecConfigurer decorating)) {
			return new CodecsDescriptor(false, List.of(), List.of());
		}
		return describe(decorating.getDelegate().getReaders(), decorating.getReaders(), true);
	}

	/**
	 * The readers replaced on a {@code WebClient.Builder} from the context: its readers as
	 * its codec customizations leave them, and those decorated as Fastpath's customizer
	 * has them decorated.
	 */
	CodecsDescriptor webClient() {
		WebClient.Builder builder = this.beanFactory.getBeanProvider(WebClient.Builder.class).getIfUnique();
		if (builder == null || !customizesWebClients()) {
			return new CodecsDescriptor(false, List.of(), List.of());
		}
		List<HttpMessageReader<?>> readers = new ArrayList<>();
		builder.clientConnector(NOT_CONNECTING).codecs((codecs) -> readers.addAll(codecs.getReaders())).build();
		return describe(readers, HttpMessageReaderDecorator.decorateAll(readers, decorators()), false);
	}

	private boolean customizesWebClients() {
		return ClassUtils.isPresent(WEB_CLIENT_CUSTOMIZER, FastpathReport.class.getClassLoader())
				&& this.beanFactory.getBeanNamesForType(FastpathWebClientCustomizer.class).length > 0;
	}

	private List<HttpMessageReaderDecorator> decorators() {
		return this.beanFactory.getBeanProvider(HttpMessageReaderDecorator.class).orderedStream().toList();
	}

	private static CodecsDescriptor describe(List<HttpMessageReader<?>> before, List<HttpMessageReader<?>> after,
			boolean server) {
		List<ReplacedReader> replaced = new ArrayList<>();
		Set<Feature> features = EnumSet.noneOf(Feature.class);
		// Decorators replace readers in place: the lists match index by index.
		for (int i = 0; i < Math.min(before.size(), after.size()); i++) {
			if (before.get(i) != after.get(i)) {
				replaced.add(new ReplacedReader(describe(before.get(i)), describe(after.get(i))));
				addFeatures(after.get(i), server, features);
			}
		}
		return new CodecsDescriptor(!replaced.isEmpty(), features.stream().map(Feature::tagValue).toList(),
				List.copyOf(replaced));
	}

	/** The reader's class and, for a reader of a decoder, the decoder's. */
	private static String describe(HttpMessageReader<?> reader) {
		Object decoder = decoder(reader);
		String name = reader.getClass().getSimpleName();
		return (decoder != null) ? name + "(" + decoder.getClass().getSimpleName() + ")" : name;
	}

	private static @Nullable Object decoder(HttpMessageReader<?> reader) {
		if (reader instanceof AggregatingHttpMessageReader<?> aggregating) {
			return aggregating.getDelegate().getDecoder();
		}
		return (reader instanceof DecoderHttpMessageReader<?> decoderReader) ? decoderReader.getDecoder() : null;
	}

	/**
	 * Add the features behind a replaced reader. The form reader replaced on a client
	 * hands responses to the stock reader: the form feature is a server's only.
	 */
	private static void addFeatures(HttpMessageReader<?> reader, boolean server, Set<Feature> features) {
		if (reader instanceof AggregatingHttpMessageReader<?>) {
			features.add(Feature.BUFFER);
		}
		if (JSON_PRESENT && decoder(reader) instanceof JsonArrayDecoder) {
			features.add(Feature.JSON);
		}
		if (server && reader instanceof LazyFormHttpMessageReader) {
			features.add(Feature.FORM);
		}
	}

	private static String featureName(HttpMessageReaderDecorator decorator) {
		if (decorator instanceof WholeBodyAggregation) {
			return Feature.BUFFER.tagValue();
		}
		if (JSON_PRESENT && decorator instanceof JsonArrayDecoding) {
			return Feature.JSON.tagValue();
		}
		if (decorator instanceof LazyFormDecoding) {
			return Feature.FORM.tagValue();
		}
		return decorator.getClass().getName();
	}

}
