package io.fastpath.integration;

import org.junit.jupiter.api.Nested;

import org.springframework.test.context.TestPropertySource;

/**
 * The {@code WebClient} body tests on every client connector Boot offers, chosen as a user
 * chooses one ({@code spring.http.clients.reactive.connector}), against a Reactor Netty
 * server. Reactor Netty's connector hands the codecs pooled Netty buffers (tracked by the
 * paranoid leak detector); the JDK's and Jetty's hand them heap buffers of a
 * {@code DefaultDataBufferFactory}, one per network read, which a one-buffer body passes
 * through the aggregator uncopied.
 */
@TestPropertySource(properties = { "fastpath.test.server=Netty", "server.shutdown=immediate",
		"spring.autoconfigure.exclude=" + RealServerTests.TOMCAT + "," + RealServerTests.JETTY })
class WebClientConnectorsIntegrationTests {

	@Nested
	@TestPropertySource(properties = "spring.http.clients.reactive.connector=reactor")
	class Reactor extends WebClientBodiesIntegrationTests {

	}

	@Nested
	@TestPropertySource(properties = "spring.http.clients.reactive.connector=jdk")
	class Jdk extends WebClientBodiesIntegrationTests {

	}

	@Nested
	@TestPropertySource(properties = "spring.http.clients.reactive.connector=jetty")
	class Jetty extends WebClientBodiesIntegrationTests {

	}

}
