package io.fastpath.json.write;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonView;
import io.fastpath.codec.WriteListener;
import io.fastpath.json.BlackbirdTwins;
import io.fastpath.json.TestBlackbirdTwins;
import io.fastpath.test.LeakTrackingDataBufferFactory;
import io.fastpath.test.TestSeed;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.module.blackbird.BlackbirdModule;

import org.springframework.core.ResolvableType;
import org.springframework.http.MediaType;
import org.springframework.http.codec.EncoderHttpMessageWriter;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.JacksonCodecSupport;
import org.springframework.http.codec.ServerSentEventHttpMessageWriter;
import org.springframework.http.codec.json.JacksonJsonEncoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The batching writers write through a twin of the application's mapper that adds
 * Blackbird, and write the bytes the stock writers write with the application's mapper:
 * random orders (records and beans, primitives, nulls, nested lists, text that needs
 * escapes) under mapper settings that change what is written (naming strategy, inclusion,
 * indentation, property order), with and without a {@code @JsonView}, as a {@code Flux}
 * (JSON array, NDJSON, server-sent events, from sources that emit at once and from another
 * thread, in batches of any size), a {@code Mono} of a {@code List} and a single value.
 * A probe's getter shows that each way of writing reads it through Blackbird's generated
 * accessors, and that a mapper registered for a type (Actuator's) is used as it is.
 */
@ExtendWith(TestSeed.class)
class TwinWritingDifferentialTests {

	private static final int[] CAPS = { 1, 40, 300, JsonBatchEncoding.DEFAULT_CAP };

	private static final ResolvableType ORDER = ResolvableType.forClass(Order.class);

	private static final ResolvableType ORDERS = ResolvableType.forClassWithGenerics(List.class, Order.class);

	/** Mapper settings that change the bytes written. */
	enum Setting {

		DEFAULTS((builder) -> builder),

		SNAKE_CASE((builder) -> builder.propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)),

		NON_NULL((builder) -> builder.changeDefaultPropertyInclusion(
				(inclusion) -> inclusion.withValueInclusion(JsonInclude.Include.NON_NULL))),

		NON_EMPTY_SORTED((builder) -> builder
			.changeDefaultPropertyInclusion((inclusion) -> inclusion.withValueInclusion(JsonInclude.Include.NON_EMPTY))
			.enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)),

		INDENTED((builder) -> builder.enable(SerializationFeature.INDENT_OUTPUT)),

		WITHOUT_DEFAULT_VIEW_INCLUSION((builder) -> builder.disable(MapperFeature.DEFAULT_VIEW_INCLUSION));

		private final UnaryOperator<JsonMapper.Builder> configuration;

		Setting(UnaryOperator<JsonMapper.Builder> configuration) {
			this.configuration = configuration;
		}

		JsonMapper mapper() {
			return this.configuration.apply(JsonMapper.builder()).build();
		}

	}

	@ParameterizedTest
	@EnumSource
	void randomOrdersAreWrittenAsStockWritesThemWithTheApplicationsMapper(Setting setting) {
		Random random = TestSeed.random("twinWriting" + setting);
		JsonMapper mapper = setting.mapper();
		JacksonJsonEncoder encoder = new JacksonJsonEncoder(mapper);
		BlackbirdTwins twins = TestBlackbirdTwins.of(BlackbirdTwins.Use.WRITING);
		assertThat(twins.twinForWriting(encoder, mapper, Order.class)).as("a twin").isNotNull();
		for (int round = 0; round < 12; round++) {
			List<Order> orders = randomOrders(random);
			int cap = CAPS[random.nextInt(CAPS.length)];
			Map<String, Object> hints = random.nextBoolean() ? Map.of()
					: Map.of(JacksonCodecSupport.JSON_VIEW_HINT, Summary.class);
			String as = setting + " round " + round + " cap " + cap + " " + hints.keySet();
			HttpMessageWriter<?> stock = new EncoderHttpMessageWriter<>(encoder);
			HttpMessageWriter<?> batching = jsonWriter(encoder, cap, twins);
			for (MediaType mediaType : List.of(MediaType.APPLICATION_JSON, MediaType.APPLICATION_NDJSON)) {
				for (boolean async : new boolean[] { false, true }) {
					assertSameBody(stock, batching, () -> source(orders, async), ORDER, mediaType, hints,
							as + " Flux " + mediaType + (async ? " async" : ""));
				}
			}
			assertSameBody(stock, batching, () -> Mono.just(orders), ORDERS, MediaType.APPLICATION_JSON, hints,
					as + " Mono<List>");
			if (!orders.isEmpty()) {
				assertSameBody(stock, batching, () -> Mono.just(orders.get(0)), ORDER, MediaType.APPLICATION_JSON,
						hints, as + " Mono");
			}
			assertSameBody(new ServerSentEventHttpMessageWriter(encoder), sseWriter(encoder, cap, twins),
					() -> source(orders, random.nextBoolean()), ORDER, MediaType.TEXT_EVENT_STREAM, hints,
					as + " sse");
		}
	}

	@Test
	void everyWayOfWritingReadsGettersThroughBlackbirdAndTheApplicationsMapperIsLeftAlone() {
		JsonMapper mapper = JsonMapper.builder().build();
		JacksonJsonEncoder encoder = new JacksonJsonEncoder(mapper);
		BlackbirdTwins twins = TestBlackbirdTwins.of(BlackbirdTwins.Use.WRITING);
		ResolvableType probes = ResolvableType.forClassWithGenerics(List.class, Probe.class);
		Map<String, Function<Probe, Publisher<?>>> ways = Map.of("Flux", Flux::just, "Mono", Mono::just,
				"Mono<List>", (probe) -> Mono.just(List.of(probe)));
		for (Map.Entry<String, Function<Probe, Publisher<?>>> way : ways.entrySet()) {
			for (MediaType mediaType : List.of(MediaType.APPLICATION_JSON, MediaType.APPLICATION_NDJSON)) {
				Probe probe = new Probe();
				ResolvableType type = way.getKey().equals("Mono<List>") ? probes : ResolvableType.forClass(Probe.class);
				WrittenBody body = WrittenBody.write(jsonWriter(encoder, JsonBatchEncoding.DEFAULT_CAP, twins),
						way.getValue().apply(probe), type, mediaType, LeakTrackingDataBufferFactory.heap(), Map.of());
				assertThat(body.error()).isNull();
				assertThat(probe.readThroughBlackbird).as(way.getKey() + " " + mediaType).isTrue();
			}
		}
		Probe probe = new Probe();
		WrittenBody events = WrittenBody.write(sseWriter(encoder, JsonBatchEncoding.DEFAULT_CAP, twins),
				Flux.just(probe), ResolvableType.forClass(Probe.class), MediaType.TEXT_EVENT_STREAM,
				LeakTrackingDataBufferFactory.heap(), Map.of());
		assertThat(events.error()).isNull();
		assertThat(probe.readThroughBlackbird).as("sse").isTrue();
		Probe plain = new Probe();
		WrittenBody stock = WrittenBody.write(new EncoderHttpMessageWriter<>(encoder), Mono.just(plain),
				ResolvableType.forClass(Probe.class), MediaType.APPLICATION_JSON, LeakTrackingDataBufferFactory.heap(),
				Map.of());
		assertThat(stock.error()).isNull();
		assertThat(plain.readThroughBlackbird).as("the application's mapper").isFalse();
		assertThat(mapper.registeredModules()).noneMatch(BlackbirdModule.class::isInstance);
	}

	@Test
	void aTypeWithAMapperRegisteredForItIsWrittenWithThatMapperNotWithATwin() {
		// As Spring Boot registers Actuator's isolated mapper for its endpoints' types
		JsonMapper registered = JsonMapper.builder().propertyNamingStrategy(PropertyNamingStrategies.UPPER_CAMEL_CASE)
			.build();
		JacksonJsonEncoder encoder = new JacksonJsonEncoder(JsonMapper.builder().build());
		encoder.registerMappersForType(Probe.class, (mappers) -> mappers.put(MediaType.APPLICATION_JSON, registered));
		BlackbirdTwins twins = TestBlackbirdTwins.of(BlackbirdTwins.Use.WRITING);
		Map<String, Function<Probe, Publisher<?>>> ways = Map.of("Flux", Flux::just, "Mono", Mono::just);
		for (Map.Entry<String, Function<Probe, Publisher<?>>> way : ways.entrySet()) {
			Probe expectedProbe = new Probe();
			WrittenBody expected = WrittenBody.write(new EncoderHttpMessageWriter<>(encoder),
					way.getValue().apply(expectedProbe), ResolvableType.forClass(Probe.class),
					MediaType.APPLICATION_JSON, LeakTrackingDataBufferFactory.heap(), Map.of());
			Probe probe = new Probe();
			WrittenBody actual = WrittenBody.write(jsonWriter(encoder, JsonBatchEncoding.DEFAULT_CAP, twins),
					way.getValue().apply(probe), ResolvableType.forClass(Probe.class), MediaType.APPLICATION_JSON,
					LeakTrackingDataBufferFactory.heap(), Map.of());
			assertThat(new String(actual.bytes(), StandardCharsets.UTF_8)).as(way.getKey())
				.isEqualTo(new String(expected.bytes(), StandardCharsets.UTF_8))
				.contains("\"Name\"");
			assertThat(probe.readThroughBlackbird).as(way.getKey()).isFalse();
		}
		Probe probe = new Probe();
		WrittenBody events = WrittenBody.write(sseWriter(encoder, JsonBatchEncoding.DEFAULT_CAP, twins),
				Flux.just(probe), ResolvableType.forClass(Probe.class), MediaType.TEXT_EVENT_STREAM,
				LeakTrackingDataBufferFactory.heap(), Map.of());
		// The registration is for JSON only: stock finds no mapper for an event's data either
		assertThat(events.error()).isInstanceOf(IllegalStateException.class).hasMessageContaining("No ObjectMapper");
		assertThat(probe.readThroughBlackbird).isFalse();
	}

	private static void assertSameBody(HttpMessageWriter<?> stock, HttpMessageWriter<?> batching,
			Supplier<Publisher<?>> source, ResolvableType elementType, MediaType mediaType,
			Map<String, Object> hints, String as) {
		LeakTrackingDataBufferFactory stockFactory = LeakTrackingDataBufferFactory.heap();
		LeakTrackingDataBufferFactory factory = LeakTrackingDataBufferFactory.heap();
		WrittenBody expected = WrittenBody.write(stock, source.get(), elementType, mediaType, stockFactory.forStock(),
				hints);
		WrittenBody actual = WrittenBody.write(batching, source.get(), elementType, mediaType, factory, hints);
		assertThat(expected.error()).as(as).isNull();
		assertThat(actual.error()).as(as).isNull();
		assertThat(new String(actual.bytes(), StandardCharsets.UTF_8)).as(as)
			.isEqualTo(new String(expected.bytes(), StandardCharsets.UTF_8));
		factory.assertNoLeaks();
	}

	static BatchingJsonWriter jsonWriter(JacksonJsonEncoder encoder, int cap, BlackbirdTwins twins) {
		return new BatchingJsonWriter(new BatchingJsonEncoder(encoder, cap, twins, WriteListener.NONE));
	}

	static BatchingServerSentEventWriter sseWriter(JacksonJsonEncoder encoder, int cap, BlackbirdTwins twins) {
		return new BatchingServerSentEventWriter(new ServerSentEventHttpMessageWriter(encoder), encoder, cap, twins,
				WriteListener.NONE);
	}

	private static <T> Flux<T> source(List<T> values, boolean async) {
		Flux<T> flux = Flux.fromIterable(values);
		return async ? flux.delayElements(Duration.ZERO, Schedulers.parallel()) : flux;
	}

	private static List<Order> randomOrders(Random random) {
		int count = switch (random.nextInt(4)) {
			case 0 -> 0;
			case 1 -> 1;
			default -> random.nextInt(120);
		};
		List<Order> orders = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			List<Line> lines = new ArrayList<>();
			for (int j = random.nextInt(4); j > 0; j--) {
				Line line = new Line();
				line.setSku(JsonBatchEncodingDifferentialTests.randomText(random));
				line.setQuantity(random.nextInt(100));
				line.setGift(random.nextBoolean());
				line.setComment(random.nextBoolean() ? null : JsonBatchEncodingDifferentialTests.randomText(random));
				lines.add(line);
			}
			orders.add(new Order(random.nextLong(), JsonBatchEncodingDifferentialTests.randomText(random),
					random.nextBoolean(), random.nextDouble() * 1000,
					random.nextBoolean() ? null : BigDecimal.valueOf(random.nextInt(100_000), 2),
					random.nextBoolean() ? null : JsonBatchEncodingDifferentialTests.randomText(random), lines,
					Status.values()[random.nextInt(Status.values().length)]));
		}
		return orders;
	}

	interface Summary {
	}

	enum Status {

		OPEN, PAID, SHIPPED

	}

	record Order(@JsonView(Summary.class) long id, @JsonView(Summary.class) String customerName, boolean express,
			double weight, @Nullable BigDecimal total, @Nullable String note, List<Line> lines, Status status) {
	}

	/** A bean: Blackbird reads its getters of each primitive kind and of objects. */
	static class Line {

		private String sku = "";

		private int quantity;

		private boolean gift;

		private @Nullable String comment;

		@JsonView(Summary.class)
		public String getSku() {
			return this.sku;
		}

		public void setSku(String sku) {
			this.sku = sku;
		}

		public int getQuantity() {
			return this.quantity;
		}

		public void setQuantity(int quantity) {
			this.quantity = quantity;
		}

		public boolean isGift() {
			return this.gift;
		}

		public void setGift(boolean gift) {
			this.gift = gift;
		}

		public @Nullable String getComment() {
			return this.comment;
		}

		public void setComment(@Nullable String comment) {
			this.comment = comment;
		}

	}

	/** Remembers whether Blackbird's generated code called its getter. */
	static class Probe {

		volatile boolean readThroughBlackbird;

		public String getName() {
			this.readThroughBlackbird = StackWalker.getInstance()
				.walk((frames) -> frames
					.anyMatch((frame) -> frame.getClassName().startsWith("tools.jackson.module.blackbird")));
			return "probe";
		}

	}

}
