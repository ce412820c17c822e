package io.fastpath.integration;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import reactor.netty.http.server.HttpServer;

import org.springframework.boot.reactor.netty.NettyServerCustomizer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counts the bytes the server has read from each connection, keyed by the client's port,
 * so that a test can send the next byte of a body only once the server has read the
 * previous one: each byte then reaches the server in a read of its own, and the body
 * arrives a byte at a time for certain, not as a sleep between writes hopes.
 */
class ServerReads implements NettyServerCustomizer {

	private final Map<Integer, AtomicLong> bytesByClientPort = new ConcurrentHashMap<>();

	@Override
	public HttpServer apply(HttpServer server) {
		return server.doOnChannelInit((observer, channel, remoteAddress) -> channel.pipeline()
			.addFirst(new ChannelInboundHandlerAdapter() {

				@Override
				public void channelRead(ChannelHandlerContext context, Object message) {
					if (message instanceof ByteBuf buffer
							&& context.channel().remoteAddress() instanceof InetSocketAddress client) {
						ServerReads.this.bytesByClientPort.computeIfAbsent(client.getPort(), (port) -> new AtomicLong())
							.addAndGet(buffer.readableBytes());
					}
					context.fireChannelRead(message);
				}

			}));
	}

	/**
	 * Wait until the server has read at least the given number of bytes from the
	 * connection of the given client port.
	 * @param clientPort the client's local port
	 * @param bytes the bytes to wait for
	 * @param timeout how long to wait at most
	 */
	void awaitBytesRead(int clientPort, long bytes, Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (bytesRead(clientPort) < bytes && System.nanoTime() < deadline) {
			LockSupport.parkNanos(50_000);
		}
		assertThat(bytesRead(clientPort)).as("bytes read by the server from port %d", clientPort)
			.isGreaterThanOrEqualTo(bytes);
	}

	private long bytesRead(int clientPort) {
		AtomicLong bytes = this.bytesByClientPort.get(clientPort);
		return (bytes != null) ? bytes.get() : 0;
	}

}
