package com.example.consumer;

import java.util.Collections;
import java.util.List;

import io.fastpath.form.FormParam;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.core.codec.Decoder;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * A WebFlux application that only adds Fastpath's starter: a JSON array read as a
 * {@code Flux}, form fields bound with {@code @FormParam}, and the server's readers.
 */
@SpringBootApplication
@RestController
public class ConsumerApplication {

	private final ServerCodecConfigurer codecs;

	ConsumerApplication(ServerCodecConfigurer codecs) {
		this.codecs = codecs;
	}

	/**
	 * Counts the items of a JSON array and adds up their quantities.
	 */
	@PostMapping("/items")
	Mono<Total> total(@RequestBody Flux<Item> items) {
		return items.reduce(new Total(0, 0), (total, item) -> new Total(total.items() + 1, total.quantity() + item.quantity()));
	}

	/**
	 * Greets the form's name as many times as the form says.
	 */
	@PostMapping("/greeting")
	String greeting(@FormParam String name, @FormParam(defaultValue = "1") int times) {
		return String.join(" ", Collections.nCopies(times, "Hello, " + name + "!"));
	}

	/**
	 * The class of every reader the server reads bodies with (of the decoder, for a
	 * decoder's reader), in order.
	 */
	@GetMapping("/readers")
	List<String> readers() {
		return this.codecs.getReaders().stream().map(ConsumerApplication::readerClass).toList();
	}

	private static String readerClass(HttpMessageReader<?> reader) {
		if (reader instanceof DecoderHttpMessageReader<?> decoderReader) {
			Decoder<?> decoder = decoderReader.getDecoder();
			return decoder.getClass().getName();
		}
		return reader.getClass().getName();
	}

	record Item(String sku, int quantity) {
	}

	record Total(int items, int quantity) {
	}

	public static void main(String[] args) {
		SpringApplication.run(ConsumerApplication.class, args);
	}

}
