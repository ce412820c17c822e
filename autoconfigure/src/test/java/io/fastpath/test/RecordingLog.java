package io.fastpath.test;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;

/** A {@link Log} that records what is logged at INFO and WARN. */
public final class RecordingLog {

	public final List<String> infos = new ArrayList<>();

	public final List<String> warnings = new ArrayList<>();

	/**
	 * The log that records.
	 * @return a {@link Log} whose INFO and WARN messages go to the lists
	 */
	public Log proxy() {
		return (Log) Proxy.newProxyInstance(Log.class.getClassLoader(), new Class<?>[] { Log.class },
				(proxy, method, arguments) -> {
					switch (method.getName()) {
						case "info" -> this.infos.add(String.valueOf(arguments[0]));
						case "warn" -> this.warnings.add(String.valueOf(arguments[0]));
						default -> {
						}
					}
					return (method.getReturnType() == boolean.class) ? false : null;
				});
	}

}
