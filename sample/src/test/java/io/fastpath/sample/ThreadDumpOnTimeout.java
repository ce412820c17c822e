package io.fastpath.sample;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * Prints every thread's stack when a test fails on a timeout, then fails it as it was:
 * a request that never answers leaves its evidence in the build log. Added after a
 * metrics request timed out in a CI run (Boot 4.0.7 leg): every event loop idle, as it
 * showed in a loop that reproduced it, is a server that stopped reading the connection
 * (reactor-netty#4361, docs/testing.md), where a busy one is a slow machine.
 */
class ThreadDumpOnTimeout implements TestExecutionExceptionHandler {

	@Override
	public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
		if (isTimeout(failure)) {
			StringBuilder dump = new StringBuilder("Threads when ").append(context.getDisplayName())
				.append(" timed out:\n");
			for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
				dump.append('"').append(thread.getThreadName()).append("\" ").append(thread.getThreadState()).append('\n');
				for (StackTraceElement frame : thread.getStackTrace()) {
					dump.append("\tat ").append(frame).append('\n');
				}
			}
			System.err.println(dump);
		}
		throw failure;
	}

	/** WebTestClient's timeout: an IllegalStateException of a blocking read, or its cause. */
	private static boolean isTimeout(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (cause instanceof TimeoutException || (message != null && message.startsWith("Timeout on blocking read"))) {
				return true;
			}
		}
		return false;
	}

}
