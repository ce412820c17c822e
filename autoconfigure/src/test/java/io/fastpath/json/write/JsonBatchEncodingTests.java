package io.fastpath.json.write;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.ServerSentEventHttpMessageWriter;
import org.springframework.http.codec.json.JacksonJsonEncoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which writers {@link JsonBatchEncoding} replaces: the stock Jackson JSON writer and SSE
 * writer, in place and around the same encoder; nothing else, and nothing twice.
 */
class JsonBatchEncodingTests {

	private final JsonBatchEncoding decoration = new JsonBatchEncoding();

	@Test
	void theStockJacksonWritersAreReplacedInPlaceAroundTheSameEncoder() {
		List<HttpMessageWriter<?>> stock = ServerCodecConfigurer.create().getWriters();
		List<HttpMessageWriter<?>> decorated = this.decoration.decorate(stock);
		assertThat(decorated).hasSameSizeAs(stock);
		int replaced = 0;
		for (int i = 0; i < stock.size(); i++) {
			HttpMessageWriter<?> writer = stock.get(i);
			if (writer instanceof EncoderHttpMessageWriter<?> encoderWriter
					&& encoderWriter.getEncoder() instanceof JacksonJsonEncoder encoder) {
				assertThat(((EncoderHttpMessageWriter<?>) decorated.get(i)).getEncoder())
					.isInstanceOfSatisfying(BatchingJsonEncoder.class,
							(batching) -> assertThat(batching.getStock()).isSameAs(encoder));
				assertThat(decorated.get(i).getWritableMediaTypes()).isEqualTo(writer.getWritableMediaTypes());
				replaced++;
			}
			else if (writer instanceof ServerSentEventHttpMessageWriter) {
				assertThat(decorated.get(i)).isInstanceOfSatisfying(BatchingServerSentEventWriter.class,
						(batching) -> assertThat(batching.getStock()).isSameAs(writer));
				replaced++;
			}
			else {
				assertThat(decorated.get(i)).isSameAs(writer);
			}
		}
		assertThat(replaced).isEqualTo(2);
	}

	@Test
	void decoratingTwiceChangesNothing() {
		List<HttpMessageWriter<?>> once = this.decoration.decorate(ServerCodecConfigurer.create().getWriters());
		assertThat(this.decoration.decorate(once)).containsExactlyElementsOf(once);
	}

	@Test
	void subclassesOfTheStockWritersAndEncoderAreLeftAlone() {
		JacksonJsonEncoder subclass = new JacksonJsonEncoder() {
		};
		List<HttpMessageWriter<?>> writers = new ArrayList<>();
		writers.add(new EncoderHttpMessageWriter<>(subclass));
		writers.add(new EncoderHttpMessageWriter<>(new JacksonJsonEncoder()) {
		});
		writers.add(new ServerSentEventHttpMessageWriter(subclass));
		writers.add(new ServerSentEventHttpMessageWriter(null));
		writers.add(new ServerSentEventHttpMessageWriter(new JacksonJsonEncoder()) {
		});
		assertThat(this.decoration.decorate(writers)).containsExactlyElementsOf(writers);
	}

}
