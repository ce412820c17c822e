package io.fastpath.multipart;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.core.codec.StringDecoder;
import org.springframework.http.codec.DecoderHttpMessageReader;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.codec.multipart.PartEventHttpMessageReader;

import io.fastpath.codec.ReadListener;
import io.fastpath.form.LazyFormDecoding;
import io.fastpath.form.TooManyFormFieldsException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link MultipartReaders}: the multipart readers {@link LazyFormDecoding} puts
 * in place of stock ones, and their settings.
 */
class MultipartReadersTests {

	@Test
	void replacesTheStockMultipartReaderInPlaceWithOneThatCollectsTheScannedPartsAndCountsThem() {
		List<HttpMessageReader<?>> readers = ServerCodecConfigurer.create().getReaders();
		int position = indexOf(readers, MultipartHttpMessageReader.class);
		MultipartHttpMessageReader stock = (MultipartHttpMessageReader) readers.get(position);
		stock.setEnableLoggingRequestDetails(true);
		List<HttpMessageReader<?>> decorated = new LazyFormDecoding(7).decorate(readers);
		assertThat(decorated.get(position)).isInstanceOfSatisfying(MultipartDataReader.class, (reader) -> {
			assertThat(reader).isNotSameAs(stock);
			assertThat(reader.isEnableLoggingRequestDetails()).isTrue();
			assertThat(reader.getPartReader()).isInstanceOf(PartCountingReader.class)
				.extracting("parts")
				.isInstanceOf(SlicingPartReader.class);
			// the form's limit and the form's error for the part past it
			assertThat(reader.getPartReader()).extracting("limit", InstanceOfAssertFactories.type(PartLimit.class))
				.satisfies((limit) -> {
					assertThat(limit.maxParts()).isEqualTo(7);
					assertThat(limit.exceeded()).isInstanceOfSatisfying(TooManyFormFieldsException.class,
							(error) -> assertThat(error.getMaxFields()).isEqualTo(7));
				});
		});
	}

	@Test
	void readsPartsWithTheSettingsOfTheStockPartReader(@TempDir Path files) throws IOException {
		DefaultPartHttpMessageReader stockParts = new DefaultPartHttpMessageReader();
		stockParts.setMaxInMemorySize(123);
		stockParts.setMaxDiskUsagePerPart(4567);
		stockParts.setMaxParts(8);
		stockParts.setMaxHeadersSize(910);
		stockParts.setHeadersCharset(StandardCharsets.ISO_8859_1);
		stockParts.setFileStorageDirectory(files);
		Scheduler scheduler = Schedulers.immediate();
		stockParts.setBlockingOperationScheduler(scheduler);
		List<HttpMessageReader<?>> decorated = new LazyFormDecoding(7)
			.decorate(List.of(new MultipartHttpMessageReader(stockParts)));
		assertThat(decorated).singleElement().isInstanceOfSatisfying(MultipartHttpMessageReader.class, (reader) -> {
			PartCountingReader counting = (PartCountingReader) reader.getPartReader();
			assertThat(counting).extracting("parts").isInstanceOfSatisfying(SlicingPartReader.class, (parts) -> {
				MultipartSettings settings = parts.settings();
				assertThat(settings.maxInMemorySize()).isEqualTo(123);
				assertThat(settings.maxDiskUsagePerPart()).isEqualTo(4567);
				assertThat(settings.maxParts()).isEqualTo(8);
				assertThat(settings.maxHeadersSize()).isEqualTo(910);
				assertThat(settings.headersCharset()).isEqualTo(StandardCharsets.ISO_8859_1);
				assertThat(settings.fileStorageDirectory().block()).isEqualTo(files);
				assertThat(settings.blockingScheduler()).isSameAs(scheduler);
			});
		});
	}

	@Test
	void leavesTheStockPartReaderWhenMultipartIsSwitchedOff() {
		List<HttpMessageReader<?>> readers = ServerCodecConfigurer.create().getReaders();
		int position = indexOf(readers, MultipartHttpMessageReader.class);
		MultipartHttpMessageReader stock = (MultipartHttpMessageReader) readers.get(position);
		List<HttpMessageReader<?>> decorated = new LazyFormDecoding(7, false, ReadListener.NONE).decorate(readers);
		// the map reader counts the stock reader's parts, and leaves a client's response to stock
		assertThat(decorated.get(position)).isInstanceOfSatisfying(MultipartDataReader.class, (reader) -> {
			assertThat(reader.getPartReader()).isInstanceOf(PartCountingReader.class)
				.hasFieldOrPropertyWithValue("parts", stock.getPartReader());
			assertThat(reader).hasFieldOrPropertyWithValue("parts", null)
				.hasFieldOrPropertyWithValue("clientReader", stock);
		});
	}

	@Test
	void replacesTheStockPartEventReaderInPlaceWithItsSettings() {
		PartEventHttpMessageReader stock = new PartEventHttpMessageReader();
		stock.setMaxInMemorySize(123);
		stock.setMaxHeadersSize(910);
		stock.setMaxParts(8);
		stock.setMaxPartSize(4567);
		stock.setHeadersCharset(StandardCharsets.ISO_8859_1);
		HttpMessageReader<?> other = new DecoderHttpMessageReader<>(StringDecoder.allMimeTypes());
		List<HttpMessageReader<?>> decorated = new LazyFormDecoding(7).decorate(List.of(other, stock));
		assertThat(decorated.get(0)).isSameAs(other);
		assertThat(decorated.get(1)).isInstanceOfSatisfying(SlicingPartEventReader.class,
				(reader) -> assertThat(reader.settings())
					.isEqualTo(new PartEventSettings(123, 910, 8, 4567, StandardCharsets.ISO_8859_1)));
	}

	@Test
	void leavesACustomPartReaderAlone() {
		HttpMessageReader<Part> custom = new DefaultPartHttpMessageReader() {
		};
		MultipartHttpMessageReader stock = new MultipartHttpMessageReader(custom);
		List<HttpMessageReader<?>> decorated = new LazyFormDecoding(7).decorate(List.of(stock));
		assertThat(decorated).singleElement().isInstanceOfSatisfying(MultipartDataReader.class, (reader) -> {
			assertThat(reader.getPartReader()).hasFieldOrPropertyWithValue("parts", custom);
			assertThat(reader).hasFieldOrPropertyWithValue("parts", null)
				.hasFieldOrPropertyWithValue("clientReader", stock);
		});
	}

	private static int indexOf(List<HttpMessageReader<?>> readers, Class<?> type) {
		for (int i = 0; i < readers.size(); i++) {
			if (readers.get(i).getClass() == type) {
				return i;
			}
		}
		throw new AssertionError("No " + type.getSimpleName() + " in " + readers);
	}

}
