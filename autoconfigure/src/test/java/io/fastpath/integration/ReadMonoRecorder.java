package io.fastpath.integration;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.fastpath.buffer.AggregatingReaders;
import io.fastpath.codec.HttpMessageReaderDecorator;
import io.fastpath.form.LazyFormReaders;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.ResolvableType;
import org.springframework.http.MediaType;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;

/**
 * Records which Fastpath whole-body readers were asked for a body, on which side
 * ("server:" or "client:") and for which decoder, so tests can prove the path was taken
 * and count reads. Applied last, it wraps each aggregating reader (see
 * {@link AggregatingReaders}) and each lazy form reader with a recording
 * pass-through.
 */
class ReadMonoRecorder implements HttpMessageReaderDecorator {

	private final List<String> reads = new CopyOnWriteArrayList<>();

	List<String> reads() {
		return List.copyOf(this.reads);
	}

	void clear() {
		this.reads.clear();
	}

	@Override
	public List<HttpMessageReader<?>> decorate(List<HttpMessageReader<?>> readers) {
		return readers.stream().<HttpMessageReader<?>>map((reader) -> {
			if (AggregatingReaders.isAggregating(reader)) {
				return new Recording<>(reader,
						((DecoderHttpMessageReader<?>) reader).getDecoder().getClass().getSimpleName());
			}
			if (LazyFormReaders.isLazyForm(reader)) {
				return new Recording<>(reader, "LazyFormHttpMessageReader");
			}
			return reader;
		}).toList();
	}

	private final class Recording<T> implements HttpMessageReader<T> {

		private final HttpMessageReader<T> delegate;

		private final String decoder;

		Recording(HttpMessageReader<T> delegate, String decoder) {
			this.delegate = delegate;
			this.decoder = decoder;
		}

		@Override
		public List<MediaType> getReadableMediaTypes() {
			return this.delegate.getReadableMediaTypes();
		}

		@Override
		public boolean canRead(ResolvableType elementType, @Nullable MediaType mediaType) {
			return this.delegate.canRead(elementType, mediaType);
		}

		@Override
		public Flux<T> read(ResolvableType elementType, ReactiveHttpInputMessage message, Map<String, Object> hints) {
			return this.delegate.read(elementType, message, hints);
		}

		@Override
		public Mono<T> readMono(ResolvableType elementType, ReactiveHttpInputMessage message,
				Map<String, Object> hints) {
			String side = (message instanceof ServerHttpRequest) ? "server:" : "client:";
			ReadMonoRecorder.this.reads.add(side + this.decoder);
			return this.delegate.readMono(elementType, message, hints);
		}

		@Override
		public Mono<T> readMono(ResolvableType actualType, ResolvableType elementType, ServerHttpRequest request,
				ServerHttpResponse response, Map<String, Object> hints) {
			ReadMonoRecorder.this.reads.add("server:" + this.decoder);
			return this.delegate.readMono(actualType, elementType, request, response, hints);
		}

	}

}
