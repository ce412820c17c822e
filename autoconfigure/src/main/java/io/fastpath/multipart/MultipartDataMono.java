package io.fastpath.multipart;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.ReactiveHttpInputMessage;
import org.springframework.http.codec.multipart.Part;
import org.springframework.util.MultiValueMap;

import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;
import io.fastpath.multipart.scan.PartHeaders;

/**
 * The map of parts of one multipart body, filled as the scan completes them: one
 * subscriber to the body feeds {@link PartAssembly} a buffer at a time and puts the parts
 * into the map, where the part stream of {@link SlicingPartReader} and a {@code collect}
 * behind it took about a dozen operators and a {@code Flux} for each buffer that completed
 * a part: for a form of a few text fields, more than reading its parts cost. The reading
 * is the part stream's: one buffer requested at a time, the next only once the parts
 * completed may be handed out (their files written, or room in the writes queued); the
 * body cancelled at its closing boundary and the map handed on then, without waiting for
 * the epilogue ({@link MultipartAssembly#isClosed()}).
 * <p>The parts are collected by name in a {@code HashMap} filled in the order they come,
 * as stock's multimap is ({@link MultipartDataReader} turns it into stock's map). The part
 * after the last allowed fails the read with the limit's error ({@link PartLimit}), and a
 * part without a name as a malformed form, as it completes, before the scan reads on
 * ({@link MapEntryCheck}). Errors are translated as the multipart reader's, and the
 * listener told of them ({@link MultipartReaders#translateError}). On error and cancel
 * the assembly is disposed and every part collected freed, once: the collector's lock
 * orders the body's thread, the writes' thread and a cancel, and no part is added once
 * the read ended.
 *
 * @author Fastpath
 */
final class MultipartDataMono extends Mono<MultiValueMap<String, Part>> {

	private final ReactiveHttpInputMessage message;

	private final MultipartSettings settings;

	private final PartLimit limit;

	private final ReadListener listener;

	private final Function<Map<String, List<Part>>, MultiValueMap<String, Part>> toMap;

	/**
	 * Read the parts of the given message.
	 * @param message the message
	 * @param settings the settings of the part reader
	 * @param limit the most parts the map may hold, and the error of one more
	 * @param listener the listener to tell of the read, at subscription, and of its refusal
	 * @param toMap turns the parts collected by name into the map handed out
	 */
	MultipartDataMono(ReactiveHttpInputMessage message, MultipartSettings settings, PartLimit limit,
			ReadListener listener, Function<Map<String, List<Part>>, MultiValueMap<String, Part>> toMap) {
		this.message = message;
		this.settings = settings;
		this.limit = limit;
		this.listener = listener;
		this.toMap = toMap;
	}

	@Override
	public void subscribe(CoreSubscriber<? super MultiValueMap<String, Part>> actual) {
		this.listener.onRead(ReadEvent.FORM_MULTIPART);
		PartAssembly assembly;
		try {
			byte[] delimiter = MultipartAssembly.delimiter(this.message, this.settings.headersCharset());
			if (delimiter == null) {
				throw new DecodingException("No multipart boundary found in Content-Type: \""
						+ this.message.getHeaders().getContentType() + "\"");
			}
			assembly = new PartAssembly(delimiter, this.settings, PartFilesWebFilter.filesOf(actual.currentContext()),
					new MapEntryCheck(this.limit));
		}
		catch (RuntimeException ex) {
			Operators.error(actual, MultipartReaders.translateError(this.listener, ex));
			return;
		}
		this.message.getBody().subscribe(new Collector(actual, assembly, this.listener, this.toMap));
	}

	/**
	 * What the map asks of each part, as stock's reader asks it of each part it emits:
	 * its count against the limit (the part after the last fails the read with the
	 * limit's error), then its name, the map's key: a part without one fails the read as
	 * a malformed form (a 400), where stock's reader fails with the
	 * {@code IllegalStateException} of the part's {@code name()} (a 500). Run by the
	 * assembly as each part completes, before the scan reads on.
	 */
	private static final class MapEntryCheck implements Consumer<PartHeaders> {

		private final PartLimit limit;

		private int count;

		MapEntryCheck(PartLimit limit) {
			this.limit = limit;
		}

		@Override
		public void accept(PartHeaders headers) {
			if (!this.limit.allows(++this.count)) {
				throw this.limit.exceeded();
			}
			if (!headers.hasName()) {
				throw MultipartReaders.partWithoutAName();
			}
		}

	}

	private static final class Collector extends Operators.MonoSubscriber<DataBuffer, MultiValueMap<String, Part>> {

		private final PartAssembly assembly;

		private final ReadListener listener;

		private final Function<Map<String, List<Part>>, MultiValueMap<String, Part>> toMap;

		private final HashMap<String, List<Part>> byName = new HashMap<>();

		private @Nullable Subscription upstream;

		/** The wait for the parts' files to be written, while there is one. */
		private @Nullable Disposable waiting;

		/** Whether the read ended (the map handed on, failed or cancelled); under the lock. */
		private boolean ended;

		/** Whether the body completed, or was cancelled at its closing boundary. */
		private boolean bodyEnded;

		Collector(CoreSubscriber<? super MultiValueMap<String, Part>> actual, PartAssembly assembly,
				ReadListener listener, Function<Map<String, List<Part>>, MultiValueMap<String, Part>> toMap) {
			super(actual);
			this.assembly = assembly;
			this.listener = listener;
			this.toMap = toMap;
		}

		@Override
		public void onSubscribe(Subscription subscription) {
			if (Operators.validate(this.upstream, subscription)) {
				this.upstream = subscription;
				this.actual.onSubscribe(this);
				subscription.request(1);
			}
		}

		@Override
		public void onNext(DataBuffer buffer) {
			if (this.bodyEnded) {
				// after the cancel at the closing boundary, a buffer that was already on its way
				DataBufferUtils.release(buffer);
				return;
			}
			if (!this.assembly.isReading(buffer)) {
				// released: the read failed or was cancelled while the buffer was on its way
				return;
			}
			Mono<Void> ready;
			try {
				ready = this.assembly.scanNext(buffer);
			}
			catch (RuntimeException ex) {
				upstream().cancel();
				fail(ex);
				return;
			}
			if (this.assembly.isClosed()) {
				// the map goes out now, and the body is cancelled, as stock's parser cancels it
				// at the closing boundary: the epilogue is not waited for
				upstream().cancel();
				this.bodyEnded = true;
				proceed(ready, true);
				return;
			}
			proceed(ready, false);
		}

		@Override
		public void onError(Throwable error) {
			if (this.bodyEnded) {
				Operators.onErrorDropped(error, currentContext());
				return;
			}
			this.bodyEnded = true;
			fail(error);
		}

		@Override
		public void onComplete() {
			if (!this.bodyEnded) {
				bodyEnded();
			}
		}

		private void bodyEnded() {
			this.bodyEnded = true;
			Mono<Void> ready;
			try {
				ready = this.assembly.scanLast();
			}
			catch (RuntimeException ex) {
				fail(ex);
				return;
			}
			proceed(ready, true);
		}

		/** Take the parts completed now, or once they may be handed out. */
		private void proceed(@Nullable Mono<Void> ready, boolean last) {
			if (ready == null) {
				takeParts(last);
				return;
			}
			Disposable wait = ready.subscribe(null, (ex) -> {
				// a file could not be written: the body, still being read, is cancelled too
				if (!last) {
					upstream().cancel();
				}
				fail(ex);
			}, () -> takeParts(last));
			boolean ended;
			synchronized (this) {
				ended = this.ended;
				this.waiting = ended ? null : wait;
			}
			if (ended) {
				wait.dispose();
			}
		}

		private void takeParts(boolean last) {
			synchronized (this) {
				this.waiting = null;
				if (this.ended) {
					// the assembly, disposed, frees what it completed
					return;
				}
				Part part;
				while ((part = this.assembly.pollCompleted()) != null) {
					// its name was read as it completed (MapEntryCheck)
					this.byName.computeIfAbsent(part.name(), (name) -> new ArrayList<>(1)).add(part);
				}
			}
			if (last) {
				handOn();
			}
			else {
				upstream().request(1);
			}
		}

		private void handOn() {
			synchronized (this) {
				if (this.ended) {
					return;
				}
				this.ended = true;
			}
			this.assembly.dispose();
			MultiValueMap<String, Part> map;
			try {
				map = this.toMap.apply(this.byName);
			}
			catch (RuntimeException ex) {
				freeCollected();
				this.actual.onError(ex);
				return;
			}
			complete(map);
		}

		private void fail(Throwable error) {
			Disposable wait;
			synchronized (this) {
				if (this.ended) {
					Operators.onErrorDropped(error, currentContext());
					return;
				}
				this.ended = true;
				wait = this.waiting;
				this.waiting = null;
			}
			if (wait != null) {
				wait.dispose();
			}
			this.assembly.dispose();
			freeCollected();
			this.actual.onError(MultipartReaders.translateError(this.listener, error));
		}

		@Override
		public void cancel() {
			boolean ended;
			Disposable wait;
			synchronized (this) {
				ended = this.ended;
				wait = this.waiting;
				this.ended = true;
				this.waiting = null;
			}
			// discards the map if it was completed and not yet requested
			super.cancel();
			if (ended) {
				return;
			}
			upstream().cancel();
			if (wait != null) {
				wait.dispose();
			}
			this.assembly.dispose();
			freeCollected();
		}

		/**
		 * Free a map completed but not requested when the read is cancelled. Reactor's
		 * {@code MonoSubscriber} calls it from {@code cancel()}; a cancel that races the
		 * completion of a map not yet requested can miss it, which WebFlux's exchange never
		 * meets: it caches the map, and requests it before it completes.
		 */
		@Override
		protected void discard(@Nullable MultiValueMap<String, Part> map) {
			if (map != null) {
				free(map);
			}
		}

		/** Free the parts collected; called once the read ended, when no more are added. */
		private void freeCollected() {
			free(this.byName);
		}

		private static void free(Map<String, List<Part>> parts) {
			parts.values().forEach((named) -> named.forEach(PartAssembly::free));
		}

		private Subscription upstream() {
			Subscription upstream = this.upstream;
			if (upstream == null) {
				throw new IllegalStateException("Not subscribed");
			}
			return upstream;
		}

	}

}
