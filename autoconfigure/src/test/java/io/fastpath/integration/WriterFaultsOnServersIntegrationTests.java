package io.fastpath.integration;

import org.junit.jupiter.api.Nested;

import org.springframework.test.context.TestPropertySource;

/**
 * {@link WriterFaultsIntegrationTests} on each reactive server Boot offers, as
 * {@link OnNettyIntegrationTests}, {@link OnTomcatIntegrationTests} and
 * {@link OnJettyIntegrationTests} run the other real-server tests: Boot is left one
 * server's auto-configuration. On Reactor Netty, again with batches of a size that is no
 * power of two.
 */
class WriterFaultsOnServersIntegrationTests {

	@Nested
	@TestPropertySource(properties = { "fastpath.test.server=Netty", "server.shutdown=immediate",
			"spring.autoconfigure.exclude=" + RealServerTests.TOMCAT + "," + RealServerTests.JETTY })
	class OnNetty extends WriterFaultsIntegrationTests {

	}

	/**
	 * Batches of a size that is no power of two, which Netty's buffers grow past when a
	 * value does not fit (to the next power of two): the budget must count what a batch
	 * would grow to, or a slow peer holds more than two batches live.
	 */
	@Nested
	@TestPropertySource(properties = { "fastpath.test.server=Netty", "server.shutdown=immediate",
			"fastpath.json.write.batch-size=100KB",
			"spring.autoconfigure.exclude=" + RealServerTests.TOMCAT + "," + RealServerTests.JETTY })
	class OnNettyWithBatchesOfNoPowerOfTwo extends WriterFaultsIntegrationTests {

	}

	@Nested
	@TestPropertySource(properties = { "fastpath.test.server=Tomcat", "server.shutdown=immediate",
			"spring.autoconfigure.exclude=" + RealServerTests.NETTY + "," + RealServerTests.JETTY })
	class OnTomcat extends WriterFaultsIntegrationTests {

	}

	@Nested
	@TestPropertySource(properties = { "fastpath.test.server=Jetty", "server.shutdown=immediate",
			"spring.autoconfigure.exclude=" + RealServerTests.NETTY + "," + RealServerTests.TOMCAT })
	class OnJetty extends WriterFaultsIntegrationTests {

	}

}
