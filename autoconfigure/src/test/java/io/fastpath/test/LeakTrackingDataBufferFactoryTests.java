package io.fastpath.test;

import java.nio.ByteBuffer;
import java.util.List;

import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.NettyDataBufferFactory;
import org.springframework.core.io.buffer.PooledDataBuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The heap factory sees what release paths get wrong: a buffer never released, and one
 * released twice, also through {@code DataBufferUtils.release} (which skips a buffer no
 * longer allocated) and through two discard hooks.
 */
class LeakTrackingDataBufferFactoryTests {

	private final LeakTrackingDataBufferFactory.Heap factory = (LeakTrackingDataBufferFactory.Heap) LeakTrackingDataBufferFactory
		.heap();

	@Test
	void bufferReleasedOnceIsNoLeak() {
		DataBuffer buffer = this.factory.bufferOf(new byte[] { 1 });
		DataBufferUtils.release(buffer);
		assertThat(((PooledDataBuffer) buffer).isAllocated()).isFalse();
		assertThatNoException().isThrownBy(this.factory::assertNoLeaks);
	}

	@Test
	void bufferNeverReleasedIsReported() {
		this.factory.bufferOf(new byte[] { 1 });
		assertThatExceptionOfType(AssertionError.class).isThrownBy(this.factory::assertNoLeaks)
			.withMessageContaining("still allocated");
	}

	@ParameterizedTest
	@ValueSource(strings = { "allocateBuffer", "bufferOf", "wrap(byte[])", "wrap(ByteBuffer)", "wrap(ByteBuf)",
			"join" })
	void nettyBufferNeverReleasedIsReportedHoweverTheFactoryMadeIt(String how) {
		LeakTrackingDataBufferFactory netty = LeakTrackingDataBufferFactory.nettyPooled();
		DataBuffer leaked = switch (how) {
			case "allocateBuffer" -> netty.allocateBuffer(16);
			case "bufferOf" -> netty.bufferOf(new byte[] { 1 });
			case "wrap(byte[])" -> netty.wrap(new byte[] { 1 });
			case "wrap(ByteBuffer)" -> netty.wrap(ByteBuffer.allocateDirect(4));
			case "wrap(ByteBuf)" -> ((NettyDataBufferFactory) netty).wrap(PooledByteBufAllocator.DEFAULT.buffer(4));
			default -> netty.join(List.of(netty.bufferOf(new byte[] { 1 }), netty.bufferOf(new byte[] { 2 })));
		};
		assertThatExceptionOfType(AssertionError.class).isThrownBy(netty::assertNoLeaks)
			.withMessageContaining("still allocated");
		DataBufferUtils.release(leaked);
		assertThatNoException().isThrownBy(netty::assertNoLeaks);
	}

	@Test
	void bufferReleasedTwiceWithDataBufferUtilsIsReported() {
		DataBuffer buffer = this.factory.bufferOf(new byte[] { 1 });
		assertThat(DataBufferUtils.release(buffer)).isTrue();
		assertThat(DataBufferUtils.release(buffer)).as("the second release is swallowed, as in production").isFalse();
		assertThatExceptionOfType(AssertionError.class).isThrownBy(this.factory::assertNoLeaks)
			.withMessageContaining("released more often than retained");
	}

	@Test
	void bufferReleasedTwiceDirectlyIsReportedAndThrows() {
		PooledDataBuffer buffer = (PooledDataBuffer) this.factory.bufferOf(new byte[] { 1 });
		buffer.release();
		assertThatIllegalStateException().isThrownBy(buffer::release);
		assertThatExceptionOfType(AssertionError.class).isThrownBy(this.factory::assertNoLeaks)
			.withMessageContaining("released more often than retained");
	}

	/** As when an operator hands a dropped buffer to every discard hook downstream. */
	@Test
	void bufferReleasedByTwoDiscardHooksIsReported() {
		DataBuffer buffer = this.factory.bufferOf(new byte[] { 1 });
		Mono.just(buffer)
			.filter((dropped) -> false)
			.doOnDiscard(DataBuffer.class, DataBufferUtils::release)
			.doOnDiscard(DataBuffer.class, DataBufferUtils::release)
			.block();
		assertThatExceptionOfType(AssertionError.class).isThrownBy(this.factory::assertNoLeaks)
			.withMessageContaining("released more often than retained");
	}

	@Test
	void bufferRetainedOnceMayBeReleasedTwice() {
		DataBuffer buffer = this.factory.bufferOf(new byte[] { 1 });
		((PooledDataBuffer) buffer).retain();
		DataBufferUtils.release(buffer);
		assertThat(((PooledDataBuffer) buffer).isAllocated()).isTrue();
		DataBufferUtils.release(buffer);
		assertThatNoException().isThrownBy(this.factory::assertNoLeaks);
	}

	@Test
	void capacitiesAskedForAreRecordedAndHugeOnesRefused() {
		DataBufferUtils.release(this.factory.allocateBuffer(10));
		assertThatIllegalStateException().isThrownBy(() -> this.factory.allocateBuffer(2_000_000_000))
			.withMessageContaining("2000000000");
		assertThat(this.factory.requestedCapacities()).containsExactly(10, 2_000_000_000);
		this.factory.assertNoLeaks();
	}

	@Test
	void capacityHeldCountsBuffersWithReferencesLeft() {
		DataBuffer held = this.factory.allocateBuffer(100);
		DataBufferUtils.release(this.factory.allocateBuffer(50));
		assertThat(this.factory.capacityHeld()).isEqualTo(100);
		DataBufferUtils.release(held);
		assertThat(this.factory.capacityHeld()).isZero();
	}

}
