package io.fastpath.autoconfigure;

import java.util.List;

import io.fastpath.codec.WriteEvent;
import io.fastpath.codec.WriteListener;

import org.springframework.beans.factory.ObjectProvider;

/**
 * The one {@link WriteListener} that Fastpath's writers are given: the application's
 * listener beans (Fastpath's meters among them) in order, the single one as it is, or
 * {@link WriteListener#NONE} when there is none, so that the writers make no event at all.
 *
 * @author Fastpath
 * @see ReadListeners
 */
final class WriteListeners {

	private WriteListeners() {
	}

	static WriteListener of(ObjectProvider<WriteListener> listeners) {
		List<WriteListener> ordered = listeners.orderedStream().toList();
		return switch (ordered.size()) {
			case 0 -> WriteListener.NONE;
			case 1 -> ordered.get(0);
			default -> new Composite(ordered.toArray(WriteListener[]::new));
		};
	}

	private record Composite(WriteListener[] listeners) implements WriteListener {

		@Override
		public void onWrite(WriteEvent event) {
			for (WriteListener listener : this.listeners) {
				listener.onWrite(event);
			}
		}

	}

}
