package io.fastpath.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.client.MultipartBodyBuilder;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.BodyInserters;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The curl lines of the README's sample section, each followed by a {@code # answer} line,
 * replayed with a {@code WebTestClient}: the README shows what the sample answers, and
 * this keeps it true. Understands what those lines use: a URL, {@code -H 'Name: value'},
 * {@code -d 'body'} (a POST, a form unless a Content-Type is given, as curl does) and
 * {@code -F 'name=value;filename=...;type=...'} (a POST of a multipart form, a part per
 * {@code -F}, its value given inline).
 */
final class ReadmeCurlLines {

	private static final Path README = Path.of("..", "README.md");

	private ReadmeCurlLines() {
	}

	/** Replay every curl line and check the answer shown under it. */
	static void check(WebTestClient client) {
		List<CurlLine> lines = read();
		assertThat(lines).as("curl lines in the README's sample section").hasSizeGreaterThanOrEqualTo(8);
		for (CurlLine line : lines) {
			String answer = line.send(client);
			assertThat(answer).as(line.command()).isEqualTo(line.expected());
		}
	}

	static List<CurlLine> read() {
		String readme;
		try {
			readme = Files.readString(README, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		String section = readme.substring(readme.indexOf("## The sample"));
		section = section.substring(section.indexOf("```bash") + "```bash".length());
		section = section.substring(0, section.indexOf("```"));
		String[] rawLines = section.replace("\\\n", " ").split("\n");
		List<CurlLine> lines = new ArrayList<>();
		for (int i = 0; i < rawLines.length; i++) {
			String command = rawLines[i].trim();
			if (command.startsWith("curl ") && i + 1 < rawLines.length && rawLines[i + 1].startsWith("# ")) {
				lines.add(new CurlLine(command, rawLines[i + 1].substring(2)));
			}
		}
		return lines;
	}

	record CurlLine(String command, String expected) {

		String send(WebTestClient client) {
			List<String> words = words(this.command);
			String url = null;
			String body = null;
			List<String> headers = new ArrayList<>();
			MultipartBodyBuilder parts = null;
			for (int i = 1; i < words.size(); i++) {
				String word = words.get(i);
				switch (word) {
					case "-s" -> {
					}
					case "-H" -> headers.add(words.get(++i));
					case "-d" -> body = words.get(++i);
					case "-F" -> {
						parts = (parts != null) ? parts : new MultipartBodyBuilder();
						addPart(parts, words.get(++i));
					}
					default -> {
						assertThat(word).as("an option this replay does not know, in " + this.command)
							.doesNotStartWith("-");
						url = word;
					}
				}
			}
			assertThat(url).as(this.command).startsWith("localhost:8080/");
			WebTestClient.RequestBodySpec request = client
				.method((body != null || parts != null) ? HttpMethod.POST : HttpMethod.GET)
				.uri(url.substring("localhost:8080".length()));
			boolean contentType = false;
			for (String header : headers) {
				int colon = header.indexOf(':');
				String name = header.substring(0, colon).trim();
				contentType |= name.equalsIgnoreCase("Content-Type");
				request.header(name, header.substring(colon + 1).trim());
			}
			if (body != null) {
				if (!contentType) {
					request.contentType(MediaType.APPLICATION_FORM_URLENCODED);
				}
				request.bodyValue(body);
			}
			if (parts != null) {
				request.body(BodyInserters.fromMultipartData(parts.build()));
			}
			byte[] answer = request.exchange().expectStatus().isOk().expectBody().returnResult().getResponseBody();
			return new String((answer != null) ? answer : new byte[0], StandardCharsets.UTF_8);
		}

		/** A {@code -F} part as curl sends it: {@code name=value}, then {@code ;filename=} and {@code ;type=}. */
		private static void addPart(MultipartBodyBuilder parts, String option) {
			int equals = option.indexOf('=');
			String[] value = option.substring(equals + 1).split(";");
			MultipartBodyBuilder.PartBuilder part = parts.part(option.substring(0, equals),
					value[0].getBytes(StandardCharsets.UTF_8));
			for (int i = 1; i < value.length; i++) {
				String setting = value[i].trim();
				if (setting.startsWith("filename=")) {
					part.filename(setting.substring("filename=".length()));
				}
				else {
					assertThat(setting).as("a -F setting this replay knows").startsWith("type=");
					part.contentType(MediaType.parseMediaType(setting.substring("type=".length())));
				}
			}
		}

		/** Split a shell line into words, honouring single quotes (all the README uses). */
		private static List<String> words(String line) {
			List<String> words = new ArrayList<>();
			StringBuilder word = null;
			boolean quoted = false;
			for (char c : line.toCharArray()) {
				if (c == '\'') {
					quoted = !quoted;
					word = (word != null) ? word : new StringBuilder();
				}
				else if (c == ' ' && !quoted) {
					if (word != null) {
						words.add(word.toString());
						word = null;
					}
				}
				else {
					word = (word != null) ? word : new StringBuilder();
					word.append(c);
				}
			}
			if (word != null) {
				words.add(word.toString());
			}
			return words;
		}

	}

}
