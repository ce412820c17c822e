package io.fastpath.autoconfigure;

import java.util.List;

import io.fastpath.codec.ReadEvent;
import io.fastpath.codec.ReadListener;

import org.springframework.beans.factory.ObjectProvider;

/**
 * The one {@link ReadListener} that Fastpath's decorators are given: the application's
 * listener beans (Fastpath's meters among them) in order, the single one as it is, or
 * {@link ReadListener#NONE} when there is none.
 *
 * @author Fastpath
 */
final class ReadListeners {

	private ReadListeners() {
	}

	static ReadListener of(ObjectProvider<ReadListener> listeners) {
		List<ReadListener> ordered = listeners.orderedStream().toList();
		return switch (ordered.size()) {
			case 0 -> ReadListener.NONE;
			case 1 -> ordered.get(0);
			default -> new Composite(ordered.toArray(ReadListener[]::new));
		};
	}

	private record Composite(ReadListener[] listeners) implements ReadListener {

		@Override
		public void onRead(ReadEvent event) {
			for (ReadListener listener : this.listeners) {
				listener.onRead(event);
			}
		}

	}

}
