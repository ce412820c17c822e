package io.fastpath.integration;

import org.junit.jupiter.api.Nested;

import org.springframework.test.context.TestPropertySource;

/**
 * {@link WriterFaultsIntegrationTests} on each reactive server Boot offers, as
 * {@link OnNettyIntegrationTests}, {@link OnTomcatIntegrationTests} and
 * {@link OnJettyIntegrationTests} run the other real-server tests: Boot is left one
 * server's auto-configuration.
 */
class WriterFaultsOnServersIntegrationTests {

	@Nested
	@TestPropertySource(properties = { "fastpath.test.server=Netty", "server.shutdown=immediate",
			"spring.autoconfigure.exclude=" + RealServerTests.TOMCAT + "," + RealServerTests.JETTY })
	class OnNetty extends WriterFaultsIntegrationTests {

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
