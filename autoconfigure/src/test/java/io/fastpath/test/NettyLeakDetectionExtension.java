package io.fastpath.test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fails a test class when Netty's leak detector reports a leak while it ran. Registered
 * for every test class through JUnit's extension auto-detection; the build runs tests
 * with {@code -Dio.netty.leakDetection.level=paranoid}, so every buffer is tracked.
 * <p>Netty only logs leaks; this installs a detector that also records them. It must be
 * installed before the first buffer is allocated, which auto-detection guarantees.
 */
public final class NettyLeakDetectionExtension implements AfterAllCallback {

	private static final List<String> leaks = new CopyOnWriteArrayList<>();

	/** Set while a test provokes a leak on purpose, to keep its report out of the build log. */
	static volatile boolean quiet;

	static {
		ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
		ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
	}

	@Override
	public void afterAll(ExtensionContext context) throws Exception {
		List<String> found = collectLeaks();
		assertThat(found).as("Netty buffer leaks reported by the leak detector").isEmpty();
	}

	/**
	 * Collect the leaks reported so far: unreachable buffers are reported when the
	 * detector next tracks an allocation after they were collected.
	 */
	static List<String> collectLeaks() throws InterruptedException {
		for (int i = 0; i < 3; i++) {
			System.gc();
			Thread.sleep(20);
			ByteBuf probe = PooledByteBufAllocator.DEFAULT.directBuffer(1);
			probe.release();
		}
		List<String> found = new ArrayList<>(leaks);
		leaks.clear();
		return found;
	}

	private static final class RecordingFactory extends ResourceLeakDetectorFactory {

		@Override
		public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
				long maxActive) {
			return new RecordingDetector<>(resource, samplingInterval);
		}

	}

	private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {

		RecordingDetector(Class<T> resourceType, int samplingInterval) {
			super(resourceType, samplingInterval);
		}

		@Override
		protected boolean needReport() {
			return true;
		}

		@Override
		protected void reportTracedLeak(String resourceType, String records) {
			leaks.add("LEAK of " + resourceType + ":" + records);
			if (!quiet) {
				super.reportTracedLeak(resourceType, records);
			}
		}

		@Override
		protected void reportUntracedLeak(String resourceType) {
			leaks.add("LEAK of " + resourceType + " (untraced)");
			if (!quiet) {
				super.reportUntracedLeak(resourceType);
			}
		}

	}

}
