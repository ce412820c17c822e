package io.fastpath.integration;

import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.web.server.reactive.context.ReactiveWebServerApplicationContext;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ResolvableType;
import org.springframework.core.SpringVersion;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.MultipartBodyBuilder;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.http.codec.ClientCodecConfigurer;
import org.springframework.http.codec.multipart.MultipartHttpMessageWriter;
import org.springframework.mock.http.client.reactive.MockClientHttpRequest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.util.MultiValueMap;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Base for tests against {@link FastpathTestApplication} on a real port: a client built
 * from Boot's {@code WebClient.Builder}, and the recorder of whole-body reads, cleared
 * before each test. Each test class runs on every reactive server Boot offers, nested in
 * {@link OnNettyIntegrationTests}, {@link OnTomcatIntegrationTests} and
 * {@link OnJettyIntegrationTests}, which leave Boot one server auto-configuration each.
 * Each class's server stops when the class is done: the classes hardly share a context,
 * and two dozen servers left running until the JVM exits hold their threads and outlast
 * Surefire's wait for the forked JVM to exit.
 */
@DirtiesContext
abstract class RealServerTests {

	/** Boot's server auto-configurations, all on the test classpath. */
	static final String NETTY = "org.springframework.boot.reactor.netty.autoconfigure.NettyReactiveWebServerAutoConfiguration";

	static final String TOMCAT = "org.springframework.boot.tomcat.autoconfigure.reactive.TomcatReactiveWebServerAutoConfiguration";

	static final String JETTY = "org.springframework.boot.jetty.autoconfigure.reactive.JettyReactiveWebServerAutoConfiguration";

	/** The server the enclosing class names: Netty, Tomcat or Jetty. */
	@Value("${fastpath.test.server}")
	private String server;

	@Autowired
	private ReactiveWebServerApplicationContext context;

	@LocalServerPort
	private int port;

	@Autowired
	private WebClient.Builder builder;

	@Autowired
	protected ReadMonoRecorder recorder;

	protected WebClient client;

	@BeforeEach
	void setUpClient() {
		WebClient.Builder builder = this.builder.baseUrl("http://localhost:" + this.port);
		if ("Jetty".equals(this.server)) {
			// Jetty may keep a connection whose request body was left unread (a 413 or 415
			// answered before reading it) and parse the rest of that body as the next
			// request: a pooled connection would carry the 400 that follows into the next
			// request, a test's own or the next test's (seen in CI). Stock readers leave such
			// bodies unread too. A connection per request here; BadInputIntegrationTests
			// checks what Jetty does on one connection.
			builder.clientConnector(
					new ReactorClientHttpConnector(HttpClient.create(ConnectionProvider.newConnection())));
		}
		this.client = builder.build();
		this.recorder.clear();
	}

	/** The server the test runs on: Netty, Tomcat or Jetty. */
	protected String server() {
		return this.server;
	}

	/**
	 * Skip a test of a truncated multipart body where Spring's own multipart parser leaks:
	 * on Spring Framework 7.0.8 (Boot 4.0.7) {@code MultipartParser} keeps a buffer when it
	 * fails on a body cut short, which Netty's detector reports (seen in CI, not always:
	 * it depends on when the garbage collector runs); 7.0.10 (Boot 4.1.2) releases it.
	 */
	protected static void assumeMultipartParserReleasesTruncatedBodies() {
		assumeTrue(!isSpringFramework70Before10(),
				() -> "Spring Framework " + SpringVersion.getVersion() + "'s MultipartParser leaks a truncated body's buffer");
	}

	/**
	 * Whether Spring Framework is a 7.0 release before 7.0.10 (Boot 4.0.7 has 7.0.8), whose
	 * multipart parser differs from later ones in ways some tests allow for.
	 */
	protected static boolean isSpringFramework70Before10() {
		String version = SpringVersion.getVersion();
		return version != null && version.matches("7\\.0\\.[0-9]");
	}

	@Test
	void runsOnTheServerItIsNamedFor() {
		assertThat(this.context.getWebServer()).isNotNull()
			.extracting((webServer) -> webServer.getClass().getSimpleName())
			.isEqualTo(this.server + "WebServer");
	}

	/** The bytes as a body of chunks of the given size, sent with chunked encoding. */
	protected static Flux<DataBuffer> chunks(byte[] bytes, int chunkSize) {
		return Flux.range(0, (bytes.length + chunkSize - 1) / chunkSize).map((index) -> {
			int offset = index * chunkSize;
			int length = Math.min(chunkSize, bytes.length - offset);
			return DefaultDataBufferFactory.sharedInstance.allocateBuffer(length).write(bytes, offset, length);
		});
	}

	/**
	 * Post a multipart form and take the answer, whatever its status. The form is encoded
	 * ahead and sent as one body with a {@code Content-Length}, as a browser sends a small
	 * form: a server that answers before reading a body to its end (a limit was crossed)
	 * closes the connection, and a client still writing the body then fails on the closed
	 * connection instead of reading the answer (seen in CI with a body streamed part by
	 * part).
	 */
	protected ResponseEntity<String> postMultipart(String uri, MultipartBodyBuilder form) {
		MockClientHttpRequest encoded = new MockClientHttpRequest(HttpMethod.POST, uri);
		new MultipartHttpMessageWriter(ClientCodecConfigurer.create().getWriters())
			.write(Mono.just(form.build()), ResolvableType.forClass(MultiValueMap.class), MediaType.MULTIPART_FORM_DATA,
					encoded, Map.of())
			.block();
		byte[] body = DataBufferUtils.join(encoded.getBody()).map((joined) -> {
			byte[] bytes = new byte[joined.readableByteCount()];
			joined.read(bytes);
			DataBufferUtils.release(joined);
			return bytes;
		}).block();
		return this.client.post()
			.uri(uri)
			.headers((headers) -> headers.setContentType(encoded.getHeaders().getContentType()))
			.bodyValue(body)
			.exchangeToMono((response) -> response.toEntity(String.class))
			.block();
	}

	/** Post a form body and take the answer, whatever its status. */
	protected ResponseEntity<String> postForm(String uri, String form) {
		return this.client.post()
			.uri(uri)
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.bodyValue(form)
			.exchangeToMono((response) -> response.toEntity(String.class))
			.block();
	}

}
