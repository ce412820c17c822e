package io.fastpath.integration;

import org.junit.jupiter.api.Nested;

import org.springframework.test.context.TestPropertySource;

/**
 * The real-server tests on Reactor Netty, the server of {@code spring-boot-starter-webflux}:
 * it hands the application pooled direct buffers, which Netty's paranoid leak detector
 * tracks (see NettyLeakDetectionExtension). Boot is left this server's auto-configuration
 * alone, as in an application that has only this server.
 */
@TestPropertySource(properties = { "fastpath.test.server=Netty", "server.shutdown=immediate",
		"spring.autoconfigure.exclude=" + RealServerTests.TOMCAT + "," + RealServerTests.JETTY })
class OnNettyIntegrationTests {

	@Nested
	class BadInput extends BadInputIntegrationTests {

	}

	@Nested
	class Faults extends FaultsIntegrationTests {

	}

	@Nested
	class Form extends FormIntegrationTests {

	}

	/**
	 * The form suite with Spring's part reader under Fastpath's map of parts and form
	 * arguments ({@code fastpath.form.multipart.enabled=false}): a reader above the
	 * server, so one server is enough; the suite runs on all three with Fastpath's. Reads
	 * that fail as a part spools are left out: Spring's reader may release a buffer twice
	 * there (see FormIntegrationTests).
	 */
	@Nested
	@TestPropertySource(properties = "fastpath.form.multipart.enabled=false")
	class FormOnSpringsPartReader extends FormIntegrationTests {

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

	/** Client-side only (Boot's WebClient against a socket server): one server is enough. */
	@Nested
	class RightlyEmptyBodies extends RightlyEmptyBodiesIntegrationTests {

	}

}
