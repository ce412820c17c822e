package io.fastpath.json.write;

import java.util.concurrent.Executor;

import io.netty.channel.EventLoop;
import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.Connection;

import org.springframework.http.ReactiveHttpOutputMessage;
import org.springframework.http.client.reactive.ClientHttpRequest;
import org.springframework.http.server.reactive.AbstractServerHttpResponse;

/**
 * The event loop that Reactor Netty sends a message on, to hand it the parts of a body
 * written with a flush after each part. Reactor Netty writes such a body
 * ({@code sendGroups}) as a {@code concatMap} of each part followed by a flush marker
 * ({@code concatWith}). Reactor Core's concatenation ({@code FluxConcatArray}) can lose a
 * request made on one thread while another thread moves it from the part to the marker:
 * it reads its state and its current subscription, then compares and sets the state,
 * which can have changed and come back to the same value in between, and the request goes
 * to the finished part. The marker is never asked for, and the body never ends. The
 * transport asks from its event loop; a source that emits from a thread of its own (a
 * database driver's) emits the parts, and so moves the concatenation, from that thread.
 * Parts handed to the event loop first are emitted, subscribed to and asked for on one
 * thread.
 *
 * @author Fastpath
 */
final class SendingEventLoop {

	private SendingEventLoop() {
	}

	/**
	 * Return the event loop of the connection the given message is sent on, as a
	 * scheduler that runs a task at once when called on that loop, or {@code null} when
	 * the message is not one of Reactor Netty's. A decorated server response or client
	 * request (a filter that logs or traces the body) is looked through: whatever the
	 * decorator does with the parts, the thread they are handed to it on is no part of its
	 * contract.
	 * @param message the message a body is written to
	 * @return the scheduler, or {@code null}
	 */
	static @Nullable Scheduler of(ReactiveHttpOutputMessage message) {
		ReactiveHttpOutputMessage sent = SendPacing.undecorated(message);
		// Checked first: Reactor Netty's types load only for Reactor Netty's messages
		return SendPacing.sentByReactorNetty(sent) ? ReactorNettyLoops.of(sent) : null;
	}

	/** Reactor Netty's types, loaded only for its messages. */
	private static final class ReactorNettyLoops {

		static @Nullable Scheduler of(ReactiveHttpOutputMessage message) {
			Object nativeMessage = null;
			if (message instanceof AbstractServerHttpResponse response) {
				nativeMessage = response.getNativeResponse();
			}
			else if (message instanceof ClientHttpRequest request) {
				nativeMessage = request.getNativeRequest();
			}
			if (!(nativeMessage instanceof Connection connection)) {
				return null;
			}
			EventLoop loop = connection.channel().eventLoop();
			// At once when on the loop: a body made there (a fused source, the usual case)
			// takes no trip through the loop's task queue and goes out as soon as before
			Executor onLoop = (task) -> {
				if (loop.inEventLoop()) {
					task.run();
				}
				else {
					loop.execute(task);
				}
			};
			return Schedulers.fromExecutor(onLoop);
		}

	}

}
