package io.fastpath.autoconfigure;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import io.fastpath.autoconfigure.FastpathEndpoint.CodecsDescriptor;
import io.fastpath.autoconfigure.FastpathEndpoint.ReplacedReader;
import io.fastpath.autoconfigure.FastpathEndpoint.ReplacedWriter;
import io.fastpath.autoconfigure.FastpathWebClientCustomizer.Customization;
import io.fastpath.buffer.WholeBodyAggregation;
import io.fastpath.codec.DecoratingServerCodecConfigurer;
import io.fastpath.codec.HttpMessageReaderDecorator;
import io.fastpath.codec.HttpMessageWriterDecorator;
import io.fastpath.codec.ReadEvent.Feature;
import io.fastpath.form.FormArgumentsWebFluxConfigurer;
import io.fastpath.form.LazyFormDecoding;
import io.fastpath.json.JsonArrayDecoding;
import io.fastpath.json.write.JsonBatchEncoding;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.ServerSentEventHttpMessageWriter;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;
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

	/** The feature name of batched JSON writing. */
	static final String JSON_WRITE = "json-write";

	private static final String WEB_CLIENT_CUSTOMIZER = "org.springframework.boot.webclient.WebClientCustomizer";

	/** The clone of a builder is built only to list its readers, never to connect. */
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
		writerDecorators().forEach((decorator) -> features.add(writerFeatureName(decorator)));
		if (this.beanFactory.getBeanNamesForType(FormArgumentsWebFluxConfigurer.class).length > 0) {
			features.add("form-arguments");
		}
		return features;
	}

	/** The readers and writers replaced on the application's {@code ServerCodecConfigurer}. */
	CodecsDescriptor server() {
		ServerCodecConfigurer configurer = this.beanFactory.getBeanProvider(ServerCodecConfigurer.class).getIfUnique();
		if (!(configurer instanceof DecoratingServerCodecConfigurer decorating)) {
			return notApplied("the ServerCodecConfigurer bean is not decorated by Fastpath");
		}
		return describe(decorating.getDelegate().getReaders(), decorators(), decorating.getDelegate().getWriters(),
				writerDecorators(), true);
	}

	/**
	 * The readers and writers replaced on the {@code WebClient.Builder} of the context, as
	 * Fastpath's customizer installed them: its codecs as its codec customizations leave
	 * them, and those the decorators the customizer gave it replace. A builder the customizer did not
	 * customize (an application's own builder bean) is reported as not applied. Nothing is
	 * called on the builder but {@code clone()}: it may be the application's own, a
	 * singleton that its clients are built from.
	 */
	CodecsDescriptor webClient() {
		FastpathWebClientCustomizer customizer = customizesWebClients()
				? this.beanFactory.getBeanProvider(FastpathWebClientCustomizer.class).getIfUnique() : null;
		if (customizer == null) {
			return notApplied("Fastpath's WebClientCustomizer is not registered");
		}
		WebClient.Builder builder = this.beanFactory.getBeanProvider(WebClient.Builder.class).getIfUnique();
		if (builder == null) {
			return notApplied("no unique WebClient.Builder bean");
		}
		Customization installed = customizer.customizationOf(builder);
		if (installed == null) {
			return notApplied("the WebClient.Builder bean was not customized by Fastpath's WebClientCustomizer"
					+ " (an application's own builder: apply the context's WebClientCustomizer beans to it)");
		}
		List<HttpMessageReader<?>> readers = new ArrayList<>();
		List<HttpMessageWriter<?>> writers = new ArrayList<>();
		builder.clone().clientConnector(NOT_CONNECTING).codecs((codecs) -> {
			readers.addAll(codecs.getReaders());
			writers.addAll(codecs.getWriters());
		}).build();
		return describe(readers, installed.readers(), writers, installed.writers(), false);
	}

	private static CodecsDescriptor notApplied(String reason) {
		return new CodecsDescriptor(false, "not applied: " + reason, List.of(), List.of(), List.of());
	}

	private boolean customizesWebClients() {
		return ClassUtils.isPresent(WEB_CLIENT_CUSTOMIZER, FastpathReport.class.getClassLoader())
				&& this.beanFactory.getBeanNamesForType(FastpathWebClientCustomizer.class).length > 0;
	}

	private List<HttpMessageReaderDecorator> decorators() {
		return this.beanFactory.getBeanProvider(HttpMessageReaderDecorator.class).orderedStream().toList();
	}

	private List<HttpMessageWriterDecorator> writerDecorators() {
		return this.beanFactory.getBeanProvider(HttpMessageWriterDecorator.class).orderedStream().toList();
	}

	private static CodecsDescriptor describe(List<HttpMessageReader<?>> readers,
			List<HttpMessageReaderDecorator> readerDecorators, List<HttpMessageWriter<?>> writers,
			List<HttpMessageWriterDecorator> writerDecorators, boolean server) {
		Set<String> features = new LinkedHashSet<>();
		List<ReplacedReader> replacedReaders = replacedReaders(readers, readerDecorators, server, features);
		List<ReplacedWriter> replacedWriters = replacedWriters(writers, writerDecorators, features);
		if (replacedReaders.isEmpty() && replacedWriters.isEmpty()) {
			return notApplied("no reader or writer to replace");
		}
		return new CodecsDescriptor(true, "active", List.copyOf(features), replacedReaders, replacedWriters);
	}

	/**
	 * The writers that the decorators replace in the given list, applied one after the
	 * other as the codecs apply them, each once; adds the features behind them.
	 */
	private static List<ReplacedWriter> replacedWriters(List<HttpMessageWriter<?>> writers,
			List<HttpMessageWriterDecorator> decorators, Set<String> features) {
		List<HttpMessageWriter<?>> current = writers;
		Set<Integer> replacedAt = new TreeSet<>();
		for (HttpMessageWriterDecorator decorator : decorators) {
			List<HttpMessageWriter<?>> next = decorator.decorate(current);
			for (int i = 0; i < Math.min(current.size(), next.size()); i++) {
				if (current.get(i) != next.get(i)) {
					replacedAt.add(i);
					features.add(writerFeatureName(decorator));
				}
			}
			current = next;
		}
		List<ReplacedWriter> replaced = new ArrayList<>();
		for (int i : replacedAt) {
			if (i < current.size()) {
				replaced.add(new ReplacedWriter(describe(writers.get(i)), describe(current.get(i))));
			}
		}
		return List.copyOf(replaced);
	}

	/**
	 * The readers that the decorators replace in the given list, applied one after the
	 * other as the codecs apply them, and the features behind them: a reader one decorator
	 * replaces and the next replaces again (the JSON decoder's reader, then aggregated) is
	 * one replacement with both features. Readers are compared within this one
	 * derivation: two calls of a configurer's {@code getReaders()} build some readers anew
	 * (its catch-all {@code String} reader, for one), which compared across calls would
	 * count as replaced.
	 */
	private static List<ReplacedReader> replacedReaders(List<HttpMessageReader<?>> readers,
			List<HttpMessageReaderDecorator> decorators, boolean server, Set<String> featureNames) {
		List<HttpMessageReader<?>> current = readers;
		Set<Integer> replacedAt = new TreeSet<>();
		Set<Feature> features = EnumSet.noneOf(Feature.class);
		for (HttpMessageReaderDecorator decorator : decorators) {
			List<HttpMessageReader<?>> next = decorator.decorate(current);
			// Decorators replace readers in place: the lists match index by index.
			for (int i = 0; i < Math.min(current.size(), next.size()); i++) {
				if (current.get(i) != next.get(i)) {
					replacedAt.add(i);
					Feature feature = feature(decorator);
					// The form reader replaced on a client hands responses to the stock
					// reader: the form feature is a server's only.
					if (feature != null && (server || feature != Feature.FORM)) {
						features.add(feature);
					}
				}
			}
			current = next;
		}
		List<ReplacedReader> replaced = new ArrayList<>();
		for (int i : replacedAt) {
			if (i < current.size()) {
				replaced.add(new ReplacedReader(describe(readers.get(i)), describe(current.get(i))));
			}
		}
		features.forEach((feature) -> featureNames.add(feature.tagValue()));
		return List.copyOf(replaced);
	}

	/**
	 * The reader's class and, for a reader of a decoder, the decoder's; for the multipart
	 * reader, that of the reader of its parts.
	 */
	private static String describe(HttpMessageReader<?> reader) {
		String name = reader.getClass().getSimpleName();
		if (reader instanceof DecoderHttpMessageReader<?> decoderReader) {
			return name + "(" + decoderReader.getDecoder().getClass().getSimpleName() + ")";
		}
		if (reader instanceof MultipartHttpMessageReader multipart) {
			return name + "(" + multipart.getPartReader().getClass().getSimpleName() + ")";
		}
		return name;
	}

	private static @Nullable Feature feature(HttpMessageReaderDecorator decorator) {
		if (decorator instanceof WholeBodyAggregation) {
			return Feature.BUFFER;
		}
		if (JSON_PRESENT && decorator instanceof JsonArrayDecoding) {
			return Feature.JSON;
		}
		if (decorator instanceof LazyFormDecoding) {
			return Feature.FORM;
		}
		return null;
	}

	private static String featureName(HttpMessageReaderDecorator decorator) {
		Feature feature = feature(decorator);
		return (feature != null) ? feature.tagValue() : decorator.getClass().getName();
	}

	private static String writerFeatureName(HttpMessageWriterDecorator decorator) {
		return (JSON_PRESENT && decorator instanceof JsonBatchEncoding) ? JSON_WRITE : decorator.getClass().getName();
	}

	/** The writer's class and, for a writer of an encoder, the encoder's. */
	private static String describe(HttpMessageWriter<?> writer) {
		String name = writer.getClass().getSimpleName();
		if (writer instanceof EncoderHttpMessageWriter<?> encoderWriter) {
			return name + "(" + encoderWriter.getEncoder().getClass().getSimpleName() + ")";
		}
		if (writer instanceof ServerSentEventHttpMessageWriter sse && sse.getEncoder() != null) {
			return name + "(" + sse.getEncoder().getClass().getSimpleName() + ")";
		}
		return name;
	}

}
