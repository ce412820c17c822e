package io.fastpath.integration;

import java.util.Random;
import java.util.zip.CRC32;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;

/**
 * What the multipart tests send and compare: seeded random bytes, and {@code size/crc32}
 * of bytes sent and of content read, so that an answer names each part's bytes in a few
 * characters.
 */
final class Checksums {

	private Checksums() {
	}

	/** {@code size} bytes of a {@code Random} of the given seed. */
	static byte[] randomBytes(int size, long seed) {
		byte[] bytes = new byte[size];
		new Random(seed).nextBytes(bytes);
		return bytes;
	}

	/** {@code size/crc32} of the bytes. */
	static String of(byte[] bytes) {
		CRC32 crc = new CRC32();
		crc.update(bytes);
		return bytes.length + "/" + Long.toHexString(crc.getValue());
	}

	/** {@code size/crc32} of the content, every buffer released. */
	static Mono<String> of(Flux<DataBuffer> content) {
		return Mono.defer(() -> {
			CRC32 crc = new CRC32();
			long[] size = new long[1];
			return content.doOnNext((buffer) -> {
				try (DataBuffer.ByteBufferIterator views = buffer.readableByteBuffers()) {
					views.forEachRemaining((view) -> {
						size[0] += view.remaining();
						crc.update(view);
					});
				}
				finally {
					DataBufferUtils.release(buffer);
				}
			}).then(Mono.fromSupplier(() -> size[0] + "/" + Long.toHexString(crc.getValue())));
		});
	}

}
