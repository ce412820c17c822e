package io.fastpath.test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import reactor.core.publisher.Hooks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fails a test during which Reactor dropped an error: an error signalled after its
 * subscriber was done (cancelled, completed or failed already), which a release path that
 * runs twice, or a limit reported after a cancel, would cause. Reactor only logs those.
 * One instance serves the tests of a class, which run one after the other.
 */
public final class NoDroppedErrorsExtension implements BeforeEachCallback, AfterEachCallback {

	private final List<Throwable> dropped = new CopyOnWriteArrayList<>();

	@Override
	public void beforeEach(ExtensionContext context) {
		this.dropped.clear();
		Hooks.onErrorDropped(this.dropped::add);
	}

	@Override
	public void afterEach(ExtensionContext context) {
		Hooks.resetOnErrorDropped();
		assertThat(this.dropped).as("errors Reactor dropped").isEmpty();
	}

}
