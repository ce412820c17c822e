package io.fastpath.sample;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's jar, processed ahead of time when it was built ({@code spring-boot:process-aot}),
 * run as a user runs it in AOT mode ({@code java -Dspring.aot.enabled=true -jar}), answers
 * every curl line of the README, through Fastpath. Run by Failsafe once the jar is
 * packaged.
 */
class SampleAotIT {

	private static final Path JAR = Path.of("target", "fastpath-sample.jar");

	private static final Pattern STARTED = Pattern.compile("Netty started on port (\\d+)");

	private static final Duration STARTUP = Duration.ofSeconds(60);

	private static Process sample;

	private static Path log;

	private static int port;

	@BeforeAll
	static void startTheJarInAotMode() throws Exception {
		assertThat(JAR).as("the packaged sample").isRegularFile();
		log = Files.createTempFile("fastpath-sample-aot", ".log");
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		sample = new ProcessBuilder(java, "-Dspring.aot.enabled=true", "-jar", JAR.toString(), "--server.port=0",
				"--server.address=127.0.0.1")
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		long deadline = System.nanoTime() + STARTUP.toNanos();
		while (port == 0) {
			Matcher started = STARTED.matcher(output());
			if (started.find()) {
				port = Integer.parseInt(started.group(1));
			}
			else {
				assertThat(sample.isAlive()).as("the sample is running; its output:%n%s", output()).isTrue();
				assertThat(System.nanoTime()).as("the sample started within %s; its output:%n%s", STARTUP, output())
					.isLessThan(deadline);
				Thread.sleep(200);
			}
		}
		assertThat(output()).contains("Starting AOT-processed SampleApplication");
	}

	@AfterAll
	static void stopTheSample() throws Exception {
		if (sample != null) {
			sample.destroy();
			if (!sample.waitFor(10, TimeUnit.SECONDS)) {
				sample.destroyForcibly();
			}
		}
		if (log != null) {
			Files.deleteIfExists(log);
		}
	}

	@Test
	void answersEveryReadmeCurlLineInAotMode() {
		ReadmeCurlLines.check(client());
	}

	@Test
	void formsAreReadByFastpathInAotMode() {
		// The README lines answer the same on stock Spring; a form over Fastpath's field limit
		// (fastpath.form.max-parameters, 1000) does not: stock reads it.
		String form = "email=ada%40example.com&seats=2" + "&x=1".repeat(1000);
		client().post()
			.uri("/signup")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.bodyValue(form)
			.exchange()
			.expectStatus()
			.isEqualTo(HttpStatus.CONTENT_TOO_LARGE)
			// Read the error body too: a response body left unread is a client buffer leak.
			.expectBody(String.class)
			.value((body) -> assertThat(body).contains("\"status\":413"));
	}

	private static WebTestClient client() {
		return WebTestClient.bindToServer()
			.baseUrl("http://127.0.0.1:" + port)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	private static String output() throws IOException {
		return Files.readString(log, StandardCharsets.UTF_8);
	}

}
