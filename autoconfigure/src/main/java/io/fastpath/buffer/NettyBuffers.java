package io.fastpath.buffer;

import org.springframework.util.ClassUtils;

/**
 * Whether Netty's buffers are on the class path, checked once for all of Fastpath. Code
 * that names Netty's types ({@code NettyDataBuffer}, {@code ByteBuf}) runs only when they
 * are, from a class of its own that loads only then: an application on another server may
 * leave Netty out. Public for Fastpath's other packages, not an API for applications.
 *
 * @author Fastpath
 */
public final class NettyBuffers {

	private static final boolean ON_CLASS_PATH = ClassUtils.isPresent("io.netty.buffer.CompositeByteBuf",
			NettyBuffers.class.getClassLoader());

	private NettyBuffers() {
	}

	/**
	 * Return whether Netty's buffers are on the class path.
	 * @return whether {@code io.netty.buffer} can be loaded
	 */
	public static boolean onClassPath() {
		return ON_CLASS_PATH;
	}

}
