package io.fastpath.json.write;

import java.util.Queue;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.Fuseable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;
import reactor.util.concurrent.Queues;
import reactor.util.context.Context;

import io.fastpath.codec.WriteEvent;
import io.fastpath.codec.WriteListener;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;

/**
 * The values of a source written in batches: each buffer holds every value the source had
 * ready when it was emitted, up to a cap. No value waits for another: when the source has
 * nothing more ready and the downstream has asked for a buffer, the batch goes out.
 * <p>A value is "ready" when it is queued: delivered while this operator asked the source
 * for more (a source that emits as it is requested, such as a {@code Flux} over a list,
 * delivers a whole prefetch at once), or while it was writing the values before it. A
 * source that delivers values one at a time from a thread of its own gets a batch of
 * each value that arrives while the previous ones are written. A source that Reactor can
 * fuse synchronously (a {@code Flux} over a collection or a range, and maps of it) is
 * polled as the batch has room, with no queue and no requests, and the first batch of a
 * JSON array response may hold {@value BatchingSubscriber#WHOLE_BODY_BATCHES} caps (at most
 * 128 KB), so that such a body goes out whole, in one buffer with its length, as a
 * {@code List} does. A poll may block (a lazy iterator, a blocking cursor, a slow
 * {@code map}) on the thread that would send what was written before it: a streaming body
 * (NDJSON, server-sent events) therefore sends its first value before it polls for the
 * second, and the values written before any poll that follows one slower than
 * {@value BatchingSubscriber#STALL_MILLIS} ms, as stock sends each value as it is made; so
 * too for a streaming source that is not fused but emits within the loop's own request.
 * <p>A drain loop in the manner of Reactor Netty's {@code MonoSendMany} (queue,
 * work-in-progress counter, bounded prefetch): Reactor has no operator that groups
 * "what is there now" without a timer, and {@code Flux#buffer} would hold a list of
 * values where this writes them straight into the buffer that is sent. Backpressure: a
 * batch is emitted only when requested; without demand the batch grows to the cap (to what
 * the batch emitted last leaves of two caps), and then the values stay in the queue (at
 * most the prefetch) and no more are requested.
 * A body paced by what its transport has sent ({@link SendPacing}: one that reaches
 * Reactor Netty as it is written, which asks for 128 buffers ahead) holds at most two caps of buffers
 * written and not yet released by the transport, the batch being filled included: the
 * batch it fills is allocated, filled and grown within what the emitted ones leave of that
 * budget, and waits for their release when they leave nothing.
 * <p>The buffers it holds (the batch not yet emitted) it releases itself, once, on cancel
 * and error, and never hands to Reactor's discard hooks (WebFlux registers hooks of its
 * own downstream, and each would release the buffer again).
 * <p>It counts what goes out as it goes (an increment per value, additions per batch)
 * and tells the listener once, when the body ends: no allocation per value, and no
 * event at all without a listener.
 *
 * @param <T> the type of the values
 * @author Fastpath
 */
final class ReadyBatches<T> extends Flux<DataBuffer> {

	/**
	 * Values asked of a source that is not fused ahead of writing, before the size of its
	 * values is known, and the fewest asked ahead after: see {@link #MAX_PREFETCH}.
	 */
	static final int PREFETCH = 32;

	/**
	 * The most values asked ahead: Reactor's default prefetch ({@code publishOn},
	 * {@code flatMap}). Within it, values are asked ahead as one cap of them takes (the cap
	 * over the largest value written lately): small values from a source on a thread of
	 * its own then rarely wait for a request from the thread that writes them, and each
	 * such wait costs a wake-up of the source's thread; large ones are asked ahead no
	 * further than {@link #PREFETCH}, as before their size is known.
	 */
	static final int MAX_PREFETCH = Math.max(PREFETCH, Queues.SMALL_BUFFER_SIZE);

	/** The capacity of the first batch, before the size of batches is known. */
	private static final int FIRST_CAPACITY = 1024;

	private final Publisher<? extends T> source;

	private final DataBufferFactory bufferFactory;

	private final Supplier<BatchWriter<T>> writers;

	private final int cap;

	private final WriteListener listener;

	private final WriteEvent.Kind kind;

	private final @Nullable OneBatchBody oneBatch;

	private final LongSupplier nanoClock;

	/**
	 * Create batches of the values of the given source.
	 * @param source the values
	 * @param bufferFactory the factory to allocate batches from
	 * @param writers gives the writer of each subscription
	 * @param cap the size a batch is kept within (a batch holds whole values: only a
	 * value well larger than those of the batch and of the one before it takes a batch
	 * past the cap)
	 * @param listener the listener to tell of each body once it has ended
	 * @param kind what the body is written as, for the listener
	 */
	ReadyBatches(Publisher<? extends T> source, DataBufferFactory bufferFactory, Supplier<BatchWriter<T>> writers,
			int cap, WriteListener listener, WriteEvent.Kind kind) {
		this(source, bufferFactory, writers, cap, listener, kind, null, System::nanoTime);
	}

	/**
	 * Create batches of the values of the given source, for one subscription that is told
	 * whether the body goes out as a single batch.
	 * @param source the values
	 * @param bufferFactory the factory to allocate batches from
	 * @param writers gives the writer of each subscription
	 * @param cap the size a batch is kept within
	 * @param listener the listener to tell of each body once it has ended
	 * @param kind what the body is written as, for the listener
	 * @param oneBatch marked before a first batch that also ends the body is emitted, or
	 * {@code null}
	 * @param nanoClock the time in nanoseconds that a slow step of the source is told by
	 * ({@link System#nanoTime()}; a test gives its own, so that a pause of the test's JVM is
	 * not taken for one)
	 */
	ReadyBatches(Publisher<? extends T> source, DataBufferFactory bufferFactory, Supplier<BatchWriter<T>> writers,
			int cap, WriteListener listener, WriteEvent.Kind kind, @Nullable OneBatchBody oneBatch,
			LongSupplier nanoClock) {
		this.source = source;
		this.bufferFactory = bufferFactory;
		this.writers = writers;
		this.cap = cap;
		this.listener = listener;
		this.kind = kind;
		this.oneBatch = oneBatch;
		this.nanoClock = nanoClock;
	}

	@Override
	public void subscribe(CoreSubscriber<? super DataBuffer> actual) {
		BatchWriter<T> writer;
		try {
			writer = this.writers.get();
		}
		catch (Throwable ex) {
			tell(this.listener, this.kind, WriteEvent.Outcome.ERROR, 0, 0, 0, actual.currentContext());
			Operators.error(actual, Operators.onOperatorError(ex, actual.currentContext()));
			return;
		}
		this.source.subscribe(
				new BatchingSubscriber<>(actual, this.bufferFactory, writer, this.cap, this.listener, this.kind,
						this.oneBatch, this.nanoClock));
	}

	/**
	 * Tell the listener of a body that has ended, before the end is signalled (so that
	 * whoever sees the end sees the event counted). What the listener throws is dropped:
	 * a listener must not change the body. No event is made for {@link WriteListener#NONE}.
	 */
	private static void tell(WriteListener listener, WriteEvent.Kind kind, WriteEvent.Outcome outcome, long values,
			long batches, long bytes, Context context) {
		if (listener == WriteListener.NONE) {
			return;
		}
		try {
			listener.onWrite(new WriteEvent(kind, outcome, values, batches, bytes));
		}
		catch (Throwable ex) {
			Exceptions.throwIfFatal(ex);
			Operators.onErrorDropped(ex, context);
		}
	}

	static final class BatchingSubscriber<T> implements CoreSubscriber<T>, Subscription, SendPacing.Listener {

		@SuppressWarnings("rawtypes")
		private static final AtomicIntegerFieldUpdater<BatchingSubscriber> WIP = AtomicIntegerFieldUpdater
			.newUpdater(BatchingSubscriber.class, "wip");

		@SuppressWarnings("rawtypes")
		private static final AtomicLongFieldUpdater<BatchingSubscriber> REQUESTED = AtomicLongFieldUpdater
			.newUpdater(BatchingSubscriber.class, "requested");

		@SuppressWarnings("rawtypes")
		private static final AtomicIntegerFieldUpdater<BatchingSubscriber> UNSENT = AtomicIntegerFieldUpdater
			.newUpdater(BatchingSubscriber.class, "unsent");

		/**
		 * How many caps the first batch of a JSON array response from a fused source may
		 * hold, up to {@link #WHOLE_BODY_CEILING}. Such a source is a collection or a range,
		 * its values computed as they are polled: its body goes out whole in one buffer when
		 * it ends within this (less the {@link #headroom} of its largest value), as stock
		 * writes a {@code List}, with a {@code Content-Length}
		 * and a single write. A larger body, or an endless range, goes on in batches of the
		 * cap; streaming types and request bodies, which get no length, are batched at the
		 * cap from the start.
		 */
		static final int WHOLE_BODY_BATCHES = 2;

		/**
		 * The ceiling of the first batch of a fused source, 128 KB: it holds
		 * {@link #WHOLE_BODY_BATCHES} caps up to this, and never less than one cap. Two caps
		 * are the budget of a paced body, which that batch must not take past.
		 */
		static final int WHOLE_BODY_CEILING = 128 * 1024;

		/**
		 * How long a poll of a fused source may take before the values of a streaming body
		 * are sent ahead of the next poll, in milliseconds: far longer than writing a value,
		 * far shorter than a client notices.
		 */
		static final long STALL_MILLIS = 1;

		private static final long STALL_NANOS = STALL_MILLIS * 1_000_000;

		/** The most room a batch keeps for a value larger than the largest: see {@link #headroom}. */
		private static final int MAX_HEADROOM = 1024;

		private final CoreSubscriber<? super DataBuffer> actual;

		private final DataBufferFactory bufferFactory;

		private final BatchWriter<T> writer;

		private final int cap;

		/** The size the first batch of a fused source is kept within: see {@link #WHOLE_BODY_BATCHES}. */
		private final int wholeBodyLimit;

		/**
		 * The memory a paced body holds in batches written and not yet released by its
		 * transport, the batch being filled included: two caps.
		 */
		private final int budget;

		/** Whether the body is a stream of values (NDJSON, events), flushed as it goes. */
		private final boolean streaming;

		/**
		 * The thread of the loop while it waits in a request to the source of a streaming
		 * body, else {@code null}.
		 */
		private volatile @Nullable Thread requester;

		/**
		 * The clock when the source last delivered a value within the loop's request, or
		 * the request began; for a fused streaming source, when its last poll returned, or
		 * the loop began or emitted a batch since: the time a step of the source took is
		 * told by one read of the clock a value. Read and written on the loop's thread only.
		 */
		private long deliveredAt;

		private final WriteListener listener;

		private final WriteEvent.Kind kind;

		private final @Nullable OneBatchBody oneBatch;

		private final LongSupplier nanoClock;

		/**
		 * The values delivered and not yet written, or, fused, the source itself: polling
		 * it pulls its next value. Set once subscribed.
		 */
		private @Nullable Queue<T> queue;

		/**
		 * Whether the source is fused synchronously: it is pulled from by polling, with no
		 * requests and no {@code onNext}, and a {@code null} poll is its end.
		 */
		private boolean fused;

		private @Nullable Subscription upstream;

		private volatile int wip;

		private volatile long requested;

		private volatile boolean done;

		private @Nullable Throwable error;

		private volatile boolean cancelled;

		/**
		 * The memory (capacity) of the batches emitted and not yet released by the
		 * transport, when paced.
		 */
		private volatile int unsent;

		// Owned by the drain loop.

		/**
		 * The buffer factory of the message Reactor Netty sends, when the batches are paced by
		 * their release ({@link SendPacing}): told by the subscriber's context; {@code null}
		 * when they are not paced.
		 */
		private @Nullable DataBufferFactory pacingTransport;

		/**
		 * Whether the batch goes out before the next poll of a fused streaming source: after
		 * the body's first value, and after a poll that took, with the write of the value
		 * before it, longer than {@link #STALL_MILLIS} (see {@link #pollFusedTimed}).
		 */
		private boolean sendBeforePoll;

		/**
		 * Whether the next poll waits for demand: the values sent ahead of it are taken by
		 * then. A servlet container flushes them on a callback of its own, which a poll that
		 * blocks the request's thread would hold back; it asks for more once they are out.
		 */
		private boolean pollOnDemand;

		/**
		 * Whether the prefetch of a streaming source that is not fused waits for demand: it
		 * is asked for one value first, and for the prefetch once the batch of that value is
		 * taken. A source that emits as it is asked goes on to its next value within the
		 * request, on the thread that a servlet container would flush the first value on.
		 */
		private boolean prefetchOnDemand;

		private boolean prefetched;

		private long emitted;

		/** Values asked of a source that is not fused and not yet taken from the queue. */
		private int asked;

		private @Nullable DataBuffer batch;

		private int nextCapacity = FIRST_CAPACITY;

		/** The most bytes one value (with its separator) took in the batch being filled. */
		private int largestValue;

		/**
		 * The most bytes one value took in the batch emitted last, unless it was larger than
		 * the cap: with {@link #largestValue}, what the next value may take. A value larger
		 * than the cap takes any batch past it; remembered for longer, it would leave every
		 * later batch one value.
		 */
		private int previousLargestValue;

		/** Whether the end of the body is written (the last batch may still wait for demand). */
		private boolean completed;

		/** Whether writing failed: no more values are written, the error ends the body. */
		private boolean stopped;

		/** The capacity of the batch emitted last. */
		private int lastEmitted;

		/** Values written into batches, emitted or not. */
		private long written;

		/** Values in the batches emitted: {@link #written} as it was at the last emit. */
		private long valuesOut;

		private long bytesOut;

		BatchingSubscriber(CoreSubscriber<? super DataBuffer> actual, DataBufferFactory bufferFactory,
				BatchWriter<T> writer, int cap, WriteListener listener, WriteEvent.Kind kind,
				@Nullable OneBatchBody oneBatch, LongSupplier nanoClock) {
			this.actual = actual;
			this.bufferFactory = bufferFactory;
			this.writer = writer;
			this.cap = cap;
			this.wholeBodyLimit = (oneBatch != null && kind == WriteEvent.Kind.JSON_ARRAY)
					? Math.max(cap, (int) Math.min((long) cap * WHOLE_BODY_BATCHES, WHOLE_BODY_CEILING)) : cap;
			this.budget = (int) Math.min(2L * cap, Integer.MAX_VALUE);
			this.streaming = (kind != WriteEvent.Kind.JSON_ARRAY);
			this.listener = listener;
			this.kind = kind;
			this.oneBatch = oneBatch;
			this.nanoClock = nanoClock;
		}

		@Override
		public Context currentContext() {
			return this.actual.currentContext();
		}

		@Override
		public void onSubscribe(Subscription subscription) {
			if (Operators.validate(this.upstream, subscription)) {
				this.upstream = subscription;
				this.queue = fuse(subscription);
				this.pacingTransport = SendPacing.pacingTransport(currentContext());
				this.actual.onSubscribe(this);
				// The first request is made from the drain loop, so that a source that emits
				// as it is requested fills the queue before the first batch is written.
				drain();
			}
		}

		/**
		 * The source itself when it can be fused synchronously (a {@code Flux} over a
		 * collection or a range, and maps of it): its values are all ready, and polling them
		 * spares a queue, a drain and an atomic increment a value. Otherwise a queue of
		 * the prefetch.
		 */
		@SuppressWarnings("unchecked")
		private Queue<T> fuse(Subscription subscription) {
			if (subscription instanceof Fuseable.QueueSubscription<?> source
					&& source.requestFusion(Fuseable.SYNC) == Fuseable.SYNC) {
				this.fused = true;
				return (Queue<T>) source;
			}
			return Queues.<T>get(MAX_PREFETCH).get();
		}

		@Override
		public void onNext(T value) {
			if (this.done) {
				Operators.onNextDropped(value, currentContext());
				return;
			}
			if (!queue().offer(value)) {
				upstream().cancel();
				onError(Operators.onOperatorError(Exceptions.failWithOverflow(Exceptions.BACKPRESSURE_ERROR_QUEUE_FULL),
						currentContext()));
				return;
			}
			if (this.streaming && this.requester == Thread.currentThread()) {
				sendIfStalled();
			}
			drain();
		}

		/**
		 * A value of a streaming body delivered within the loop's own request to the source
		 * (a source that emits as it is asked, not fused), on the loop's thread: the loop
		 * waits in that request, where the source may block before its next value. As for a
		 * fused source, the body's first value, and the values written before the source goes
		 * on after a step slower than {@link #STALL_MILLIS}, go out now, from here: the loop
		 * left its state in its fields, reads them again when the request returns, and ends
		 * the body itself.
		 */
		private void sendIfStalled() {
			long now = this.nanoClock.getAsLong();
			boolean stalled = (now - this.deliveredAt > STALL_NANOS);
			this.deliveredAt = now;
			if (this.written == 0 || stalled) {
				drainReady(true);
			}
		}

		@Override
		public void onError(Throwable error) {
			if (this.done) {
				Operators.onErrorDropped(error, currentContext());
				return;
			}
			this.error = error;
			this.done = true;
			drain();
		}

		@Override
		public void onComplete() {
			if (this.done) {
				return;
			}
			this.done = true;
			drain();
		}

		@Override
		public void request(long n) {
			if (Operators.validate(n)) {
				Operators.addCap(REQUESTED, this, n);
				drain();
			}
		}

		@Override
		public void cancel() {
			if (this.cancelled) {
				return;
			}
			this.cancelled = true;
			upstream().cancel();
			drain();
		}

		/**
		 * A paced batch was released by the transport: the budget has room again. Called
		 * on the transport's thread, also after the body has ended (then to no effect).
		 */
		@Override
		public void released(int bytes) {
			UNSENT.addAndGet(this, -bytes);
			drain();
		}

		private Queue<T> queue() {
			Queue<T> queue = this.queue;
			if (queue == null) {
				throw new IllegalStateException("Not subscribed");
			}
			return queue;
		}

		private Subscription upstream() {
			Subscription upstream = this.upstream;
			if (upstream == null) {
				throw new IllegalStateException("Not subscribed");
			}
			return upstream;
		}

		private void drain() {
			if (WIP.getAndIncrement(this) != 0) {
				return;
			}
			int missed = 1;
			for (;;) {
				if (!this.prefetched) {
					this.prefetched = true;
					if (!this.fused && this.streaming) {
						// One value first, then the prefetch once it is taken (see prefetchOnDemand)
						this.prefetchOnDemand = true;
						this.asked = 1;
						requestFromSource(1);
					}
					else if (!this.fused) {
						askAhead();
					}
				}
				if (!drainReady(false)) {
					return;
				}
				missed = WIP.addAndGet(this, -missed);
				if (missed == 0) {
					return;
				}
			}
		}

		/**
		 * Ask the source for as many values as the window ahead holds: see
		 * {@link #MAX_PREFETCH}.
		 */
		private void askAhead() {
			int more = window() - this.asked;
			if (more > 0) {
				this.asked += more;
				requestFromSource(more);
			}
		}

		/**
		 * Ask ahead again once three quarters of the window are taken, as Reactor's
		 * operators replenish their prefetch: a request for a few values at a time would
		 * cost the source's thread a wake-up each. Called for every value taken: the window
		 * (a division) is worked out only once so few are asked that it could be low.
		 */
		private void askAheadWhenLow() {
			if (this.asked <= (MAX_PREFETCH >> 2) && this.asked <= (window() >> 2)) {
				askAhead();
			}
		}

		/**
		 * The values asked ahead: as many as one cap takes of the largest value written
		 * lately, within {@link #PREFETCH} and {@link #MAX_PREFETCH}.
		 */
		private int window() {
			int largest = Math.max(this.largestValue, this.previousLargestValue);
			if (largest == 0) {
				return PREFETCH;
			}
			return Math.max(PREFETCH, Math.min(MAX_PREFETCH, this.cap / largest));
		}

		/**
		 * Ask the source for more values. A streaming body notes that the loop waits in the
		 * request, and when it began, for the values the source delivers within it (see
		 * {@link #sendIfStalled}).
		 */
		private void requestFromSource(int n) {
			if (!this.streaming) {
				upstream().request(n);
				return;
			}
			Thread previous = this.requester;
			this.deliveredAt = this.nanoClock.getAsLong();
			this.requester = Thread.currentThread();
			try {
				upstream().request(n);
			}
			finally {
				this.requester = previous;
			}
		}

		/**
		 * Write what is queued and emit what is requested.
		 * @param nested whether called from within the loop's own request to the source,
		 * which goes on when it returns: values are written and sent, but the body is not
		 * ended here
		 * @return false once the body has ended (the loop is never left again)
		 */
		private boolean drainReady(boolean nested) {
			if (this.fused && this.streaming) {
				this.deliveredAt = this.nanoClock.getAsLong();
			}
			for (;;) {
				if (this.cancelled) {
					if (nested) {
						return true;
					}
					releaseAll();
					ended(WriteEvent.Outcome.CANCEL);
					return false;
				}
				boolean demand = this.requested != this.emitted;
				DataBuffer current = this.batch;
				int size = (current != null) ? this.writer.size(current) : 0;
				if (isFull(current, size, demand)) {
					if (current == null || size == 0 || !demand) {
						// Waits for demand, or for the transport to release what it was sent
						return true;
					}
					if (flush(current)) {
						emit(current, true, false);
					}
					continue;
				}
				boolean done = this.done;
				T value = null;
				if (this.fused) {
					if (!done) {
						if (this.sendBeforePoll && current != null && size > 0) {
							if (!demand) {
								return true;
							}
							if (flush(current)) {
								emit(current, false, false);
								this.pollOnDemand = true;
							}
							continue;
						}
						if (this.pollOnDemand) {
							if (!demand) {
								return true;
							}
							this.pollOnDemand = false;
						}
						value = this.streaming ? pollFusedTimed() : pollFused();
						done = (value == null);
					}
				}
				else if (!this.stopped) {
					value = queue().poll();
				}
				if (value == null) {
					if (done) {
						return nested || !end(demand);
					}
					if (current != null && demand && (nested || !sending())) {
						if (!flush(current)) {
							continue;
						}
						emit(current, false, false);
					}
					if (this.prefetchOnDemand && !nested && this.written > 0) {
						if (this.requested == this.emitted) {
							return true;
						}
						this.prefetchOnDemand = false;
						askAhead();
						continue;
					}
					return true;
				}
				if (current == null) {
					current = this.bufferFactory.allocateBuffer(nextCapacity(demand));
					this.batch = current;
				}
				int before = this.writer.size(current);
				try {
					this.writer.write(value, current);
				}
				catch (Throwable ex) {
					stop(ex);
					continue;
				}
				this.largestValue = Math.max(this.largestValue, this.writer.size(current) - before);
				if (++this.written == 1 && this.fused && this.streaming) {
					this.sendBeforePoll = true;
				}
				if (!this.fused) {
					this.asked--;
					if (!this.prefetchOnDemand) {
						askAheadWhenLow();
					}
				}
			}
		}

		/**
		 * Whether the transport of a paced body still sends a batch emitted before: the
		 * values written since then wait for its release, which drains again, with those
		 * that arrive meanwhile. A source that hands its values from a thread of its own
		 * finds each alone in the queue, and a batch emitted at every empty queue would
		 * hold one value: here a batch holds what arrived while the one before it went out,
		 * and no value waits for one not yet made, only for the bytes ahead of it.
		 */
		private boolean sending() {
			return this.pacingTransport != null && this.unsent > 0;
		}

		/**
		 * The memory of the batches emitted that the transport may still hold: of a paced
		 * body, those it has not released; else, while it asks for nothing more, the batch
		 * emitted last (a servlet container asks for the next once it has written one, and
		 * the batch filled ahead of its demand is kept within the budget with that one).
		 * @param demand whether the downstream asked for a batch not yet emitted
		 */
		private int unsent(boolean demand) {
			if (this.pacingTransport != null) {
				return this.unsent;
			}
			return demand ? 0 : this.lastEmitted;
		}

		/**
		 * The capacity of the next batch: see {@link #emit}; within what the unsent batches
		 * leave of the budget, which counts what they hold in memory.
		 * @param demand whether the downstream asked for a batch not yet emitted
		 */
		private int nextCapacity(boolean demand) {
			int unsent = unsent(demand);
			return (unsent > 0) ? Math.max(1, Math.min(this.nextCapacity, this.budget - unsent)) : this.nextCapacity;
		}

		/**
		 * The next value of a fused streaming source, timed: after a slow poll the values
		 * written go out before the next, which may be as slow (see {@link #STALL_MILLIS}).
		 * The poll is timed from the clock's last read (the poll before, the loop's start,
		 * or a batch emitted since), so that the clock is read once a value rather than
		 * twice: the time also holds the write of the value before, usually far shorter
		 * than a stall. A value slower than that to write (a very large one, or one whose
		 * getters load lazily) sends what was written a batch early, holding none back.
		 */
		private @Nullable T pollFusedTimed() {
			T value = pollFused();
			long now = this.nanoClock.getAsLong();
			this.sendBeforePoll = (now - this.deliveredAt > STALL_NANOS);
			this.deliveredAt = now;
			return value;
		}

		/**
		 * The next value of a fused source; {@code null} once it has ended, completed or
		 * failed (its error then ends the body, after the values written before it).
		 */
		private @Nullable T pollFused() {
			T value;
			try {
				value = queue().poll();
			}
			catch (Throwable ex) {
				this.error = Operators.onOperatorError(upstream(), ex, currentContext());
				this.done = true;
				return null;
			}
			if (value == null) {
				this.done = true;
			}
			return value;
		}

		/**
		 * End the body with an error of writing: the values written before it go out first.
		 * The source is cancelled unless it has ended already.
		 */
		private void stop(Throwable ex) {
			this.stopped = true;
			if (!this.done) {
				upstream().cancel();
			}
			Throwable error = Operators.onOperatorError(ex, currentContext());
			if (this.error == null) {
				this.error = error;
			}
			else {
				// The source's own error came first and ends the body
				Operators.onErrorDropped(error, currentContext());
			}
			this.done = true;
		}

		/**
		 * End the body once the source has ended and everything it sent is written: with
		 * the values written before an error, as stock sends them before the error.
		 * @return whether it ended: false while a last batch waits for demand
		 */
		private boolean end(boolean demand) {
			if (this.error == null && !this.completed) {
				this.completed = true;
				try {
					this.batch = this.writer.complete(this.batch, this.bufferFactory);
				}
				catch (Throwable ex) {
					stop(ex);
				}
			}
			DataBuffer last = this.batch;
			if (last != null && this.writer.size(last) > 0) {
				if (!demand) {
					return false;
				}
				if (flush(last)) {
					OneBatchBody body = this.oneBatch;
					if (body != null && this.emitted == 0 && this.error == null) {
						body.markOneBatch();
					}
					emit(last, false, true);
				}
			}
			releaseAll();
			Throwable error = this.error;
			ended((error != null) ? WriteEvent.Outcome.ERROR : WriteEvent.Outcome.COMPLETE);
			if (error != null) {
				this.actual.onError(error);
			}
			else {
				this.actual.onComplete();
			}
			return true;
		}

		/**
		 * Whether the batch takes no more values: it holds its limit, or the largest value
		 * written lately, with some {@link #headroom}, would take it past the limit. Emitted
		 * before that value rather than after, a batch stays within the capacity it was
		 * allocated with (the cap, once a batch was full), where growing it would copy it
		 * whole into a buffer twice its size.
		 * The limit is the cap, but for the first batch of a fused source (see
		 * {@link #WHOLE_BODY_BATCHES}); a paced body keeps it within what its unsent batches
		 * leave of the budget, and takes no value at all while the largest would not fit.
		 * A batch allocated smaller than the limit (its budget was short then, or the batch
		 * before it small) grows as its factory grows buffers, by more than the value: the
		 * budget must leave room for what it grows to.
		 * @param current the batch, {@code null} when there is none
		 * @param size the bytes the batch holds, 0 when there is none
		 * @param demand whether the downstream asked for a batch not yet emitted
		 */
		private boolean isFull(@Nullable DataBuffer current, int size, boolean demand) {
			int limit = (this.fused && this.emitted == 0) ? this.wholeBodyLimit : this.cap;
			int unsent = unsent(demand);
			if (unsent > 0) {
				limit = Math.min(limit, this.budget - unsent);
			}
			if (size >= limit) {
				return true;
			}
			int largest = Math.max(this.largestValue, this.previousLargestValue);
			if (size == 0) {
				// Nothing to grow: a paced body waits only while the largest value cannot fit
				return unsent > 0 && largest > limit;
			}
			int needed = size + largest + headroom(largest);
			if (needed > limit) {
				return true;
			}
			return unsent > 0 && current != null && needed > current.capacity()
					&& BufferGrowth.grownCapacity(current, needed) > this.budget - unsent;
		}

		/**
		 * Room kept for a value somewhat larger than the largest written lately (a count that
		 * gains a digit, a longer name), which would otherwise take a batch written to its
		 * capacity past it, for a few bytes: Netty and Spring grow a buffer to the next power
		 * of two, and a paced body would hold a third cap. A quarter of the largest, at most
		 * {@value #MAX_HEADROOM} bytes: values of kilobytes vary in other ways than by a few
		 * characters, and a quarter of such a value would take room that two of them could
		 * share. A value larger still takes the batch past its capacity, as any value larger
		 * than the cap does.
		 */
		private static int headroom(int largest) {
			return Math.min((largest >> 2) + 1, MAX_HEADROOM);
		}

		/**
		 * Put into the batch what the writer holds for it, before it goes out. Should that
		 * fail (the batch could not grow), the batch is released and the error ends the body.
		 * @return whether the batch is whole and can go out
		 */
		private boolean flush(DataBuffer current) {
			try {
				this.writer.flush(current);
				return true;
			}
			catch (Throwable ex) {
				this.batch = null;
				DataBufferUtils.release(current);
				stop(ex);
				return false;
			}
		}

		/**
		 * Emit a batch, and size the next: at the cap after a full batch, else at the size of
		 * this one (a source that hands values one at a time gets small batches, and small
		 * buffers for them). A paced batch other than the last goes out as one that tells its
		 * release; its bytes count as unsent until then.
		 */
		private void emit(DataBuffer current, boolean full, boolean last) {
			this.batch = null;
			int size = current.readableByteCount();
			this.nextCapacity = full ? this.cap : Math.max(FIRST_CAPACITY, Math.min(this.cap, size));
			this.previousLargestValue = (this.largestValue <= this.cap) ? this.largestValue : 0;
			this.largestValue = 0;
			this.sendBeforePoll = false;
			this.emitted++;
			this.lastEmitted = current.capacity();
			this.valuesOut = this.written;
			this.bytesOut += size;
			DataBuffer out = current;
			DataBufferFactory transport = this.pacingTransport;
			if (transport != null && !last) {
				// The memory it holds, which may be more than its bytes
				int held = current.capacity();
				UNSENT.addAndGet(this, held);
				out = SendPacing.signalling(current, held, this, transport);
			}
			this.actual.onNext(out);
			if (this.fused && this.streaming && !last) {
				// The downstream's time to take the batch is no step of the source's
				this.deliveredAt = this.nanoClock.getAsLong();
			}
		}

		/** Tell the listener, once, of the body that ends: the loop is never entered again. */
		private void ended(WriteEvent.Outcome outcome) {
			tell(this.listener, this.kind, outcome, this.valuesOut, this.emitted, this.bytesOut, currentContext());
		}

		private void releaseAll() {
			DataBuffer current = this.batch;
			this.batch = null;
			if (current != null) {
				DataBufferUtils.release(current);
			}
			Queue<T> queue = this.queue;
			if (queue != null) {
				queue.clear();
			}
			this.writer.release();
		}

	}

}
