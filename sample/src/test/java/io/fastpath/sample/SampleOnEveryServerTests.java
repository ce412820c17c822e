package io.fastpath.sample;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.server.reactive.context.ReactiveWebServerApplicationContext;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample answers every curl line of the README through Fastpath on each reactive
 * server Boot offers, with Boot left that server's auto-configuration alone: Reactor Netty
 * (the sample's own server) and, with their heap buffers, Tomcat and Jetty.
 */
class SampleOnEveryServerTests {

	private static final String NETTY = "org.springframework.boot.reactor.netty.autoconfigure.NettyReactiveWebServerAutoConfiguration";

	private static final String TOMCAT = "org.springframework.boot.tomcat.autoconfigure.reactive.TomcatReactiveWebServerAutoConfiguration";

	private static final String JETTY = "org.springframework.boot.jetty.autoconfigure.reactive.JettyReactiveWebServerAutoConfiguration";

	@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
			properties = "server.shutdown=immediate")
	abstract static class ReadmeLinesTests {

		@LocalServerPort
		private int port;

		@Autowired
		private ReactiveWebServerApplicationContext context;

		@Test
		void answersEveryReadmeCurlLineThroughFastpath() {
			// A connection per line, as curl opens one: a pooled connection may be closed by
			// the server just as the client reuses it (seen once on Tomcat in CI, "Connection
			// prematurely closed BEFORE response"), and the replay checks answers, not reuse.
			HttpClient connectionPerRequest = HttpClient.create(ConnectionProvider.newConnection());
			WebTestClient client = WebTestClient
				.bindToServer(new ReactorClientHttpConnector(connectionPerRequest))
				.baseUrl("http://localhost:" + this.port)
				.build();
			ReadmeCurlLines.check(client);
		}

		protected String webServer() {
			return this.context.getWebServer().getClass().getSimpleName();
		}

	}

	@Nested
	@TestPropertySource(properties = "spring.autoconfigure.exclude=" + TOMCAT + "," + JETTY)
	class OnReactorNetty extends ReadmeLinesTests {

		@Test
		void runsOnReactorNetty() {
			assertThat(webServer()).isEqualTo("NettyWebServer");
		}

	}

	@Nested
	@TestPropertySource(properties = "spring.autoconfigure.exclude=" + NETTY + "," + JETTY)
	class OnTomcat extends ReadmeLinesTests {

		@Test
		void runsOnTomcat() {
			assertThat(webServer()).isEqualTo("TomcatWebServer");
		}

	}

	@Nested
	@TestPropertySource(properties = "spring.autoconfigure.exclude=" + NETTY + "," + TOMCAT)
	class OnJetty extends ReadmeLinesTests {

		@Test
		void runsOnJetty() {
			assertThat(webServer()).isEqualTo("JettyWebServer");
		}

	}

}
