package io.fastpath.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.fastpath.autoconfigure.FastpathEndpoint.CodecsDescriptor;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;

/**
 * Logs, once the application is ready, one INFO line that says where Fastpath is active:
 * the server's codecs, Spring Boot's {@code WebClient.Builder}, the form arguments. Once
 * ready, because the server's codecs are decorated when they are first created, which
 * may be late in the refresh.
 *
 * @author Fastpath
 */
final class FastpathStartupLogger implements ApplicationListener<ApplicationReadyEvent> {

	private static final Log logger = LogFactory.getLog(FastpathStartupLogger.class);

	private final FastpathReport report;

	FastpathStartupLogger(ListableBeanFactory beanFactory) {
		this.report = new FastpathReport(beanFactory);
	}

	@Override
	public void onApplicationEvent(ApplicationReadyEvent event) {
		if (logger.isInfoEnabled()) {
			logger.info(message());
		}
	}

	String message() {
		return "Fastpath active: server codecs " + describe(this.report.server()) + ", WebClient.Builder "
				+ describe(this.report.webClient()) + ", form arguments "
				+ (this.report.features().contains("form-arguments") ? "on" : "off");
	}

	private static String describe(CodecsDescriptor codecs) {
		if (!codecs.active()) {
			return codecs.status();
		}
		return codecs.features() + " (" + count(codecs.replacedReaders().size(), "reader") + ", "
				+ count(codecs.replacedWriters().size(), "writer") + " replaced)";
	}

	private static String count(int count, String noun) {
		return count + " " + noun + ((count == 1) ? "" : "s");
	}

}
