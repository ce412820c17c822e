package io.fastpath.test;

import java.util.ArrayList;
import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

/**
 * What a logger logs while a test provokes it, kept instead of printed: a test that makes
 * a component log a warning or an error on purpose asserts on these events, so that a
 * green build prints only what nobody expected. Until closed, the logger's events go to
 * this list alone, not to the appenders of its parents (the console). What a test captured
 * is not lost when it fails: {@link OnFailure} adds it to the failure.
 */
public final class CapturedLogs implements AutoCloseable {

	/** What the captures the running test closed saw, for its failure's report. */
	private static final ThreadLocal<List<String>> capturedInTest = ThreadLocal.withInitial(ArrayList::new);

	private final Logger logger;

	private final boolean additive;

	private final @Nullable Level level;

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	private CapturedLogs(String name, @Nullable Level level) {
		this.logger = (Logger) LoggerFactory.getLogger(name);
		this.additive = this.logger.isAdditive();
		this.level = this.logger.getLevel();
		if (level != null) {
			this.logger.setLevel(level);
		}
		this.appender.start();
		this.logger.addAppender(this.appender);
		this.logger.setAdditive(false);
	}

	/**
	 * Captures what the named logger and its children log until closed.
	 * @param name the logger's name
	 * @return the captured events, filled as they are logged
	 */
	public static CapturedLogs of(String name) {
		return new CapturedLogs(name, null);
	}

	/**
	 * Captures what the logger of a class logs until closed.
	 * @param type the class whose logger it is
	 * @return the captured events, filled as they are logged
	 */
	public static CapturedLogs of(Class<?> type) {
		return new CapturedLogs(type.getName(), null);
	}

	/**
	 * Captures what the logger of a class logs at a level finer than the build's (which
	 * shows warnings and errors only) until closed.
	 * @param type the class whose logger it is
	 * @param level the level the logger logs at while captured
	 * @return the captured events, filled as they are logged
	 */
	public static CapturedLogs of(Class<?> type, Level level) {
		return new CapturedLogs(type.getName(), level);
	}

	/**
	 * The events logged so far, in order.
	 * @return the events
	 */
	public List<ILoggingEvent> events() {
		return List.copyOf(this.appender.list);
	}

	/**
	 * The events logged so far, each as its level and formatted message.
	 * @return lines such as {@code "WARN Exception encountered ..."}
	 */
	public List<String> lines() {
		return events().stream().map((event) -> event.getLevel() + " " + event.getFormattedMessage()).toList();
	}

	@Override
	public void close() {
		for (ILoggingEvent event : events()) {
			IThrowableProxy thrown = event.getThrowableProxy();
			capturedInTest.get()
				.add(this.logger.getName() + " " + event.getLevel() + " " + event.getFormattedMessage()
						+ ((thrown != null) ? " (" + thrown.getClassName() + ": " + thrown.getMessage() + ")" : ""));
		}
		this.logger.setLevel(this.level);
		this.logger.setAdditive(this.additive);
		this.logger.detachAppender(this.appender);
		this.appender.stop();
	}

	/**
	 * Registered for every test class through JUnit's extension auto-detection: a test
	 * that fails has what it captured (and so kept off the console) added to its failure,
	 * as a suppressed exception.
	 */
	public static final class OnFailure implements BeforeEachCallback, TestExecutionExceptionHandler {

		@Override
		public void beforeEach(ExtensionContext context) {
			capturedInTest.remove();
		}

		@Override
		public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
			List<String> captured = capturedInTest.get();
			if (!captured.isEmpty()) {
				throwable.addSuppressed(new CapturedReport(String.join("\n", captured)));
			}
			throw throwable;
		}

	}

	/** Carries what a failed test captured into its failure's report. */
	private static final class CapturedReport extends RuntimeException {

		CapturedReport(String lines) {
			super("logged while captured:\n" + lines, null, false, false);
		}

	}

}
