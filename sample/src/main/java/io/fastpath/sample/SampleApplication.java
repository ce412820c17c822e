package io.fastpath.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A WebFlux application that gets Fastpath by depending on the starter and nothing else:
 * its controllers are plain Spring code. Run it with {@code fastpath.enabled=false} to
 * compare with stock Spring.
 */
@SpringBootApplication
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
