package io.fastpath.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.fastpath.benchmarks.JsonArrayDecodeBenchmark.Pojo;
import io.fastpath.buffer.WholeBodyAggregation;
import io.fastpath.codec.DecoratingExchangeStrategies;
import io.fastpath.json.JsonArrayDecoding;
import io.netty.buffer.Unpooled;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.resources.ConnectionProvider;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.module.blackbird.BlackbirdModule;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.web.reactive.function.client.ExchangeStrategies;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Whole response bodies read by {@code WebClient} over real HTTP, in the style of
 * zio-http's {@code ClientBenchmark}: a Reactor Netty server started in the benchmark on a
 * loopback port answers a JSON array of {@code Pojo}s from bytes made once (so the server
 * costs both clients alike), small (a few hundred bytes, one buffer) or large (about
 * 200 KB, many buffers), with {@code Content-Length}. The stock client and the Fastpath
 * client (stock strategies decorated as Boot's {@code WebClient.Builder} is) share the
 * server and one connection pool each, kept alive; so does a third, stock with Blackbird on
 * its mapper ({@code stockBlackbird}), the one-step tuning of stock.
 */
@State(Scope.Benchmark)
// Real HTTP through Reactor Netty on two cores warms up slowly: measured, a small call
// reaches its plateau only after about 13 seconds of calls.
@Warmup(iterations = 14, time = 1)
@Measurement(iterations = 8, time = 500, timeUnit = TimeUnit.MILLISECONDS)
public class WebClientBenchmark {

	private static final ParameterizedTypeReference<List<Pojo>> POJOS = new ParameterizedTypeReference<>() {
	};

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	/**
	 * The call and the body size; {@code -p callAndSize=bodyToMonoString:large} also reads
	 * a large body as one {@code String}, where the aggregator has pieces to join (left out
	 * of the suite, whose time goes to the warmup: {@code WholeBodyDecodeBenchmark} has the
	 * same path).
	 */
	@Param({ "bodyToMonoList:small", "bodyToMonoList:large", "toEntityList:large" })
	public String callAndSize;

	private String call;

	private String size;

	private DisposableServer server;

	private WebClient stock;

	private WebClient fastpath;

	private WebClient stockBlackbird;

	@Setup(Level.Trial)
	public void setUp() {
		this.call = this.callAndSize.substring(0, this.callAndSize.indexOf(':'));
		this.size = this.callAndSize.substring(this.callAndSize.indexOf(':') + 1);
		JsonMapper mapper = JsonMapper.builder().build();
		byte[] small = mapper.writeValueAsBytes(pojos(3));
		byte[] large = mapper.writeValueAsBytes(pojos(2200));
		this.server = HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.route((routes) -> routes.get("/small", (request, response) -> json(response, small))
				.get("/large", (request, response) -> json(response, large)))
			.bindNow();
		int limit = 1024 * 1024;
		// A plain mapper: Spring's default decoder would add every Jackson module on the class
		// path, Blackbird included, which Boot with the starter keeps out of the application's.
		ExchangeStrategies strategies = ExchangeStrategies.builder().codecs((codecs) -> {
			codecs.defaultCodecs().maxInMemorySize(limit);
			codecs.defaultCodecs().jacksonJsonDecoder(new JacksonJsonDecoder(mapper));
		}).build();
		this.stock = client(strategies, "stock");
		this.fastpath = client(new DecoratingExchangeStrategies(strategies,
				List.of(new JsonArrayDecoding(), new WholeBodyAggregation())), "fastpath");
		// Stock tuned in one step: Blackbird on the decoder's mapper.
		this.stockBlackbird = client(ExchangeStrategies.builder().codecs((codecs) -> {
			codecs.defaultCodecs().maxInMemorySize(limit);
			codecs.defaultCodecs()
				.jacksonJsonDecoder(
						new JacksonJsonDecoder(JsonMapper.builder().addModule(new BlackbirdModule()).build()));
		}).build(), "stockBlackbird");
	}

	@TearDown(Level.Trial)
	public void tearDown() {
		this.server.disposeNow();
	}

	@Benchmark
	public int stock() {
		return call(this.stock);
	}

	@Benchmark
	public int fastpath() {
		return call(this.fastpath);
	}

	@Benchmark
	public int stockBlackbird() {
		return call(this.stockBlackbird);
	}

	private int call(WebClient client) {
		WebClient.ResponseSpec response = client.get().uri("/" + this.size).retrieve();
		return switch (this.call) {
			case "bodyToMonoList" -> Objects.requireNonNull(response.bodyToMono(POJOS).block(TIMEOUT)).size();
			case "toEntityList" -> Objects.requireNonNull(Objects.requireNonNull(response.toEntityList(Pojo.class).block(TIMEOUT)).getBody()).size();
			case "bodyToMonoString" -> Objects.requireNonNull(response.bodyToMono(String.class).block(TIMEOUT)).length();
			default -> throw new IllegalArgumentException("Unknown call " + this.call);
		};
	}

	private WebClient client(ExchangeStrategies strategies, String name) {
		HttpClient http = HttpClient.create(ConnectionProvider.create(name, 4)).baseUrl(baseUrl());
		return WebClient.builder()
			.clientConnector(new ReactorClientHttpConnector(http))
			.exchangeStrategies(strategies)
			.build();
	}

	private String baseUrl() {
		return "http://127.0.0.1:" + this.server.port();
	}

	private static Publisher<Void> json(HttpServerResponse response, byte[] body) {
		return response.header("Content-Type", "application/json")
			.header("Content-Length", Integer.toString(body.length))
			.send(Mono.fromSupplier(() -> Unpooled.wrappedBuffer(body)));
	}

	private static List<Pojo> pojos(int count) {
		Random random = new Random(20261130L);
		List<Pojo> pojos = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			pojos.add(new Pojo("user-" + i, 18 + random.nextInt(60), random.nextDouble() * 100,
					random.nextBoolean(), List.of("tag-" + (i % 7), "group-" + (i % 3))));
		}
		return pojos;
	}

}
