package io.fastpath.integration;

import org.junit.jupiter.api.Nested;

import org.springframework.test.context.TestPropertySource;

/**
 * The real-server tests on Tomcat, through Spring's {@code TomcatHttpHandlerAdapter}: it
 * hands the application heap buffers of a {@code DefaultDataBufferFactory}, one per read,
 * which Netty's leak detector cannot see. Boot is left this server's auto-configuration
 * alone, as in an application that has only this server; {@code WebClient} stays on Boot's
 * default (Reactor Netty) connector.
 */
@TestPropertySource(properties = { "fastpath.test.server=Tomcat", "server.shutdown=immediate",
		"spring.autoconfigure.exclude=" + RealServerTests.NETTY + "," + RealServerTests.JETTY })
class OnTomcatIntegrationTests {

	@Nested
	class BadInput extends BadInputIntegrationTests {

	}

	@Nested
	class Faults extends FaultsIntegrationTests {

	}

	@Nested
	class Form extends FormIntegrationTests {

	}

	@Nested
	class FormArgumentsOnStock extends FormArgumentsOnStockIntegrationTests {

	}

	@Nested
	class Multipart extends MultipartIntegrationTests {

	}

	@Nested
	class MultipartFaults extends MultipartFaultsIntegrationTests {

	}

	@Nested
	class JsonArray extends JsonArrayIntegrationTests {

	}

	@Nested
	class JsonWrite extends JsonWriteIntegrationTests {

	}

	@Nested
	class WholeBody extends WholeBodyIntegrationTests {

	}

}
