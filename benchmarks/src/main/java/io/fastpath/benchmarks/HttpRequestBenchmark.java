package io.fastpath.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.fastpath.benchmarks.JsonArrayDecodeBenchmark.Line;
import io.fastpath.benchmarks.JsonArrayDecodeBenchmark.Order;
import io.fastpath.benchmarks.JsonArrayDecodeBenchmark.Pojo;
import io.fastpath.buffer.WholeBodyAggregation;
import io.fastpath.codec.DecoratingServerCodecConfigurer;
import io.fastpath.form.FormArgumentsWebFluxConfigurer;
import io.fastpath.form.FormParam;
import io.fastpath.form.LazyFormDecoding;
import io.fastpath.json.JsonArrayDecoding;
import io.fastpath.json.write.JsonBatchEncoding;
import io.fastpath.multipart.PartFilesWebFilter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.util.ByteArrayBuilder;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.module.blackbird.BlackbirdModule;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.http.codec.json.JacksonJsonEncoder;
import org.springframework.http.codec.multipart.FilePart;
import org.springframework.http.codec.multipart.FilePartEvent;
import org.springframework.http.codec.multipart.FormFieldPart;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.codec.multipart.PartEvent;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.config.DelegatingWebFluxConfiguration;
import org.springframework.web.reactive.config.EnableWebFlux;
import org.springframework.web.reactive.config.WebFluxConfigurer;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;

/**
 * Whole requests over real HTTP to Reactor Netty, the default server: what one request
 * costs the server, body included, with stock codecs and with Fastpath's. Two WebFlux
 * applications run in this JVM on loopback ports with the same controllers; Fastpath's
 * registers the decorators by hand, as a WebFlux application without Spring Boot does
 * ({@link FastpathWebFlux}), in the order the auto-configuration applies them.
 * <p>The client is a blocking socket on a kept-alive connection ({@link RawHttpClient})
 * that writes a request made once and reads the answer into a reused array: it allocates
 * next to nothing, so B/op is the server's (Netty's HTTP decoding, WebFlux's dispatch, the
 * body, the answer). A third application, {@code stockBlackbird}, is stock with
 * Jackson's Blackbird module on its JSON mapper: what a user gets by tuning stock in one
 * step, and the baseline that says which JSON gains are Fastpath's own (Fastpath reads
 * with a Blackbird twin of the mapper). The applications share codecs and controllers;
 * where a request is bound differently (the {@code bind} rows: {@code @ModelAttribute}
 * for stock, {@code @FormParam} for Fastpath) the row says so.
 * <p>Requests ({@code request}):
 * <ul>
 * <li>{@code form-5}: a form of 5 fields read with {@code getFormData()}, one field
 * answered ({@code -p request=form-50} for 50 fields).</li>
 * <li>{@code bind-5}, {@code bind-50}: five fields of a form of 5 or 50 bound to a controller:
 * stock {@code @ModelAttribute} on a record of five properties against Fastpath's five
 * {@code @FormParam} arguments.</li>
 * <li>{@code multipart-5}, {@code multipart-50}: the fields of {@code form-5} or
 * {@code form-50} as {@code multipart/form-data}, read with {@code getMultipartData()}, one
 * field answered: against {@code form-5}, what the multipart encoding costs.</li>
 * <li>{@code upload-4mb}: one 4 MB file part read whole through {@code getMultipartData()},
 * its size answered (over the 1 MB in-memory limit here, so spooled to disk, as
 * over Boot's 256 KB default).</li>
 * <li>{@code hostile-1mb}, {@code hostile-4mb}: 1 or 4 MB of {@code a} under a boundary of
 * 4,000 {@code a}, which is never found: the work a sender can make a part reader do per
 * byte, read through {@code getMultipartData()} and its failure answered alike.</li>
 * <li>{@code raw-4mb}: the reference of {@code upload-4mb}: the same 4 MB as the whole
 * body ({@code application/octet-stream}), read and counted by the handler.</li>
 * <li>{@code transfer-100mb}: one 100 MB file part through {@code getMultipartData()},
 * {@code transferTo} a new temporary file, its size answered and the file deleted.</li>
 * <li>{@code partevents-100mb}: the same form read as {@code @RequestBody Flux<PartEvent>},
 * the bytes of the file's events counted.</li>
 * <li>{@code records}, {@code orders}: {@code @RequestBody List<T>} of 1000 flat records
 * ({@link Pojo}) or order records holding lines with {@code BigDecimal} prices
 * ({@link Order}), the count answered.</li>
 * <li>{@code records-flux}: the same records as {@code @RequestBody Flux<T>}, counted.</li>
 * </ul>
 * <p>Responses ({@code GET}, {@code request} named for what the controller returns and
 * how many records, 10 or 1000, of the same flat records):
 * <ul>
 * <li>{@code flux-json-1000}, {@code flux-ndjson-1000}, {@code flux-sse-1000} (and
 * {@code -10}): a {@code Flux<T>} built per request over the records, as a repository
 * gives one, written as a JSON array, NDJSON, or server-sent events.</li>
 * <li>{@code threaded-json-1000}, {@code threaded-ndjson-1000}, {@code threaded-sse-1000}
 * (and {@code threaded-json-10}): the same {@code Flux} handed over from a thread of its
 * own ({@code publishOn}), as a reactive database driver hands its rows.</li>
 * <li>{@code list-1000} (and {@code -10}): a {@code List<T>} of the same records.</li>
 * <li>{@code bytes-1000} (and {@code -10}): the reference, the limit of what writing
 * these records can cost: the same JSON written by the mapper into one {@code byte[]} per
 * request, returned as {@code byte[]}.</li>
 * <li>{@code bytesflux-1000} (and {@code -10}): that {@code byte[]} returned as a
 * {@code Flux} of one: what the {@code Flux} path of a response (chunked, written as a
 * stream) costs beyond the {@code Mono} path for the same bytes.</li>
 * <li>{@code firstahead-ndjson-10}, {@code firstahead-sse-10} (and {@code -1000}): the
 * limit of a stream that sends its first value before the source makes the next, as
 * Fastpath's writers do: the same NDJSON or events, framed by hand, written by the mapper
 * into two {@code byte[]} per request (the first value, then the rest) and written to the
 * response in two flushed writes. The same bytes as {@code flux-ndjson} and
 * {@code flux-sse} (checked before measuring).</li>
 * <li>{@code cappedahead-ndjson-1000}, {@code cappedahead-sse-1000}: the limit of such a
 * stream that also holds at most one batch cap of bytes a write, as Fastpath's writers
 * do within their memory budget: the first value, then the rest in slices of the default
 * cap, each a flushed write. The same bytes again.</li>
 * <li>{@code threadedbytes-1000}: the limit of a source on a thread of its own: the
 * records handed over from the driver's thread as {@code threaded} hands them, collected
 * there and written by the mapper into one {@code byte[]}, written once.</li>
 * </ul>
 * Before measuring, the two servers' answers are compared: the same status and the same
 * body bytes (chunks joined).
 */
@State(Scope.Benchmark)
// Real HTTP warms up slowly on two cores (see WebClientBenchmark).
@Warmup(iterations = 8, time = 1)
@Measurement(iterations = 8, time = 500, timeUnit = TimeUnit.MILLISECONDS)
public class HttpRequestBenchmark {

	private static final long SEED = 20261201L;

	private static final String FORM = "application/x-www-form-urlencoded";

	private static final String JSON = "application/json";

	private static final String BOUNDARY = "----FastpathBenchmarkBoundary7MA4YWxkTrZu0gW";

	private static final String MULTIPART = "multipart/form-data; boundary=" + BOUNDARY;

	private static final String FIVE_FIELDS = "name=Ada+Lovelace&email=ada%40example.com&age=36&city=London"
			+ "&message=Hello%2C+world%21";

	@Param({ "form-5", "bind-5", "bind-50", "multipart-5", "multipart-50", "upload-4mb", "records", "orders",
			"records-flux", "flux-json-1000", "flux-json-10", "flux-ndjson-1000", "flux-ndjson-10", "flux-sse-1000",
			"flux-sse-10", "threaded-json-1000", "threaded-json-10", "threaded-ndjson-1000", "threaded-sse-1000", "list-1000", "list-10", "bytes-1000", "bytes-10", "bytesflux-1000", "bytesflux-10", "firstahead-ndjson-10",
			"firstahead-sse-10", "firstahead-ndjson-1000", "firstahead-sse-1000", "cappedahead-ndjson-1000",
			"cappedahead-sse-1000", "threadedbytes-1000",
			"raw-4mb", "transfer-100mb", "partevents-100mb", "hostile-1mb", "hostile-4mb" })
	public String request;

	private Server stockServer;

	private Server fastpathServer;

	private Server stockBlackbirdServer;

	private byte[] stockRequest;

	private byte[] fastpathRequest;

	@Setup(Level.Trial)
	public void setUp() throws IOException {
		this.stockServer = Server.start(StockWebFlux.class);
		this.fastpathServer = Server.start(FastpathWebFlux.class);
		this.stockBlackbirdServer = Server.start(StockBlackbirdWebFlux.class);
		String fields = this.request.endsWith("-50") ? FIVE_FIELDS + extraFields(45) : FIVE_FIELDS;
		JsonMapper mapper = JsonMapper.builder().build();
		switch (this.request) {
			case "form-5", "form-50" -> {
				this.stockRequest = RawHttpClient.post("/form", FORM, bytes(fields));
				this.fastpathRequest = this.stockRequest;
			}
			case "multipart-5", "multipart-50" -> {
				this.stockRequest = RawHttpClient.post("/multipart", MULTIPART, multipartFields(fields));
				this.fastpathRequest = this.stockRequest;
			}
			case "upload-4mb" -> {
				byte[] file = new byte[4 * 1024 * 1024];
				new Random(SEED).nextBytes(file);
				this.stockRequest = RawHttpClient.post("/upload", MULTIPART, multipartFile(file));
				this.fastpathRequest = this.stockRequest;
			}
			case "bind-5", "bind-50" -> {
				this.stockRequest = RawHttpClient.post("/bind/model", FORM, bytes(fields));
				this.fastpathRequest = RawHttpClient.post("/bind/params", FORM, bytes(fields));
			}
			case "records", "records-flux" -> {
				byte[] body = mapper.writeValueAsBytes(pojos(new Random(SEED)));
				String path = this.request.equals("records") ? "/records" : "/records/flux";
				this.stockRequest = RawHttpClient.post(path, JSON, body);
				this.fastpathRequest = this.stockRequest;
			}
			case "orders" -> {
				this.stockRequest = RawHttpClient.post("/orders", JSON, mapper.writeValueAsBytes(orders(new Random(SEED))));
				this.fastpathRequest = this.stockRequest;
			}
			case "raw-4mb" -> {
				this.stockRequest = uploadRequest("/raw", "application/octet-stream", 4 * 1024 * 1024, false);
				this.fastpathRequest = this.stockRequest;
			}
			case "hostile-1mb", "hostile-4mb" -> {
				// a boundary of one byte repeated, and a body of that byte: a search that
				// compares from the end restarts at every byte of it
				byte[] body = new byte[(this.request.equals("hostile-1mb") ? 1 : 4) * 1024 * 1024];
				Arrays.fill(body, (byte) 'a');
				this.stockRequest = RawHttpClient.post("/hostile", "multipart/form-data; boundary=" + "a".repeat(4000),
						body);
				this.fastpathRequest = this.stockRequest;
			}
			case "transfer-100mb", "partevents-100mb" -> {
				String path = this.request.startsWith("transfer") ? "/transfer" : "/partevents";
				this.stockRequest = uploadRequest(path, MULTIPART, 100 * 1024 * 1024, true);
				this.fastpathRequest = this.stockRequest;
			}
			default -> {
				// GET /write/{flux|list|bytes}?count=N, with the media type of the row
				String[] parts = this.request.split("-");
				String kind = parts[0];
				String count = parts[parts.length - 1];
				String accept = switch ((parts.length == 3) ? parts[1] : "json") {
					case "json" -> JSON;
					case "ndjson" -> "application/x-ndjson";
					case "sse" -> "text/event-stream";
					default -> throw new IllegalArgumentException("Unknown request " + this.request);
				};
				if (!List.of("flux", "threaded", "list", "bytes", "bytesflux", "firstahead", "cappedahead",
						"threadedbytes")
					.contains(kind)) {
					throw new IllegalArgumentException("Unknown request " + this.request);
				}
				this.stockRequest = RawHttpClient.get("/write/" + kind + "?count=" + count, accept);
				this.fastpathRequest = this.stockRequest;
				if (kind.endsWith("ahead")) {
					// a limit must write what it is the limit of: the stream's own bytes
					String limit = this.stockServer.client().answer(this.stockRequest);
					String stream = this.stockServer.client()
						.answer(RawHttpClient.get("/write/flux?count=" + count, accept));
					if (!limit.equals(stream)) {
						throw new IllegalStateException(this.request + " answered " + limit + ", the stream " + stream);
					}
				}
			}
		}
		String stockAnswer = this.stockServer.client().answer(this.stockRequest);
		String fastpathAnswer = this.fastpathServer.client().answer(this.fastpathRequest);
		String stockBlackbirdAnswer = this.stockBlackbirdServer.client().answer(this.stockRequest);
		if (!stockAnswer.equals(fastpathAnswer) || !stockAnswer.equals(stockBlackbirdAnswer)) {
			throw new IllegalStateException(this.request + ": stock answered " + stockAnswer + ", Fastpath "
					+ fastpathAnswer + ", stock with Blackbird " + stockBlackbirdAnswer);
		}
	}

	@TearDown(Level.Trial)
	public void tearDown() throws IOException {
		this.stockServer.stop();
		this.fastpathServer.stop();
		this.stockBlackbirdServer.stop();
	}

	@Benchmark
	public int stock() throws IOException {
		return this.stockServer.client().exchange(this.stockRequest);
	}

	@Benchmark
	public int fastpath() throws IOException {
		return this.fastpathServer.client().exchange(this.fastpathRequest);
	}

	@Benchmark
	public int stockBlackbird() throws IOException {
		return this.stockBlackbirdServer.client().exchange(this.stockRequest);
	}

	private static String extraFields(int count) {
		StringBuilder fields = new StringBuilder();
		for (int i = 0; i < count; i++) {
			fields.append("&field").append(i).append("=value+").append(i);
		}
		return fields.toString();
	}

	/** The urlencoded fields as a multipart form, as a browser sends them. */
	private static byte[] multipartFields(String fields) {
		ByteArrayOutputStream body = new ByteArrayOutputStream();
		for (String field : fields.split("&")) {
			int equals = field.indexOf('=');
			String name = URLDecoder.decode(field.substring(0, equals), StandardCharsets.UTF_8);
			String value = URLDecoder.decode(field.substring(equals + 1), StandardCharsets.UTF_8);
			body.writeBytes(bytes("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n"
					+ value + "\r\n"));
		}
		body.writeBytes(bytes("--" + BOUNDARY + "--\r\n"));
		return body.toByteArray();
	}

	private static byte[] multipartFile(byte[] file) {
		ByteArrayOutputStream body = new ByteArrayOutputStream();
		body.writeBytes(bytes("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"data.bin\"\r\n"
				+ "Content-Type: application/octet-stream\r\n\r\n"));
		body.writeBytes(file);
		body.writeBytes(bytes("\r\n--" + BOUNDARY + "--\r\n"));
		return body.toByteArray();
	}

	/**
	 * A POST of {@code size} seeded random bytes, alone or as the one file part of a
	 * multipart form, built in place in one array: a 100 MB body is held once, not copied
	 * through a stream.
	 */
	private static byte[] uploadRequest(String path, String contentType, int size, boolean multipart) {
		byte[] before = multipart ? bytes("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\";"
				+ " filename=\"data.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n") : new byte[0];
		byte[] after = multipart ? bytes("\r\n--" + BOUNDARY + "--\r\n") : new byte[0];
		int length = before.length + size + after.length;
		byte[] head = bytes("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: " + contentType
				+ "\r\nContent-Length: " + length + "\r\n\r\n");
		byte[] request = new byte[head.length + length];
		System.arraycopy(head, 0, request, 0, head.length);
		System.arraycopy(before, 0, request, head.length, before.length);
		Random random = new Random(SEED);
		byte[] chunk = new byte[64 * 1024];
		int at = head.length + before.length;
		for (int end = at + size; at < end; at += chunk.length) {
			random.nextBytes(chunk);
			System.arraycopy(chunk, 0, request, at, Math.min(chunk.length, end - at));
		}
		System.arraycopy(after, 0, request, at, after.length);
		return request;
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static List<Pojo> pojos(Random random) {
		List<Pojo> pojos = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			List<String> tags = new ArrayList<>();
			for (int j = random.nextInt(4); j > 0; j--) {
				tags.add("tag" + random.nextInt(50));
			}
			pojos.add(new Pojo("user-" + i + "-" + Long.toString(random.nextLong() >>> 1, 36), random.nextInt(100),
					random.nextDouble() * 100, random.nextBoolean(), tags));
		}
		return pojos;
	}

	private static List<Order> orders(Random random) {
		String[] skus = { "tea", "cake", "scone", "jam" };
		List<Order> orders = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			List<Line> lines = new ArrayList<>();
			for (int j = random.nextInt(4); j >= 0; j--) {
				lines.add(new Line(skus[random.nextInt(skus.length)], 1 + random.nextInt(5),
						BigDecimal.valueOf(50 + random.nextInt(2000), 2)));
			}
			orders.add(new Order("order-" + i, "customer-" + random.nextInt(500), lines));
		}
		return orders;
	}

	/** One application on a loopback port, and a client connected to it. */
	record Server(AnnotationConfigApplicationContext context, DisposableServer server, RawHttpClient client) {

		/**
		 * The one event loop every application's server runs on, so that the sides of a row
		 * run on the same thread, placed alike against the client's. With Reactor Netty's
		 * shared workers (at least four) each server's connection gets a worker of its own,
		 * which two cores place differently in each JVM: a side whose worker runs on the
		 * other core than the client's pays a wake-up across cores twice a request, and a
		 * small request's ratio then depends on which side it was in that JVM.
		 */
		private static final LoopResources LOOP = LoopResources.create("benchmark-http", 1, true);

		static Server start(Class<?> webFlux) throws IOException {
			AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(webFlux,
					Endpoints.class);
			HttpHandler handler = WebHttpHandlerBuilder.applicationContext(context).build();
			DisposableServer server = HttpServer.create()
				.host("127.0.0.1")
				.port(0)
				.runOn(LOOP)
				.handle(new ReactorHttpHandlerAdapter(handler))
				.bindNow();
			return new Server(context, server, new RawHttpClient(server.port()));
		}

		void stop() throws IOException {
			this.client.close();
			this.server.disposeNow();
			this.context.close();
		}

	}

	/**
	 * The same codecs on both sides: a limit that holds the largest body here (about
	 * 150 KB), and a plain mapper. Spring's default JSON decoder registers every Jackson
	 * module on the class path, Blackbird included, where Boot with the starter keeps it out
	 * of the application's mapper (Fastpath reads with a twin that has it). The encoder too,
	 * with the mapper that writes the {@code bytes} reference.
	 */
	private static void configureCodecs(ServerCodecConfigurer codecs) {
		configureCodecs(codecs, JsonMapper.builder().build(), Endpoints.MAPPER);
	}

	private static void configureCodecs(ServerCodecConfigurer codecs, JsonMapper reading, JsonMapper writing) {
		codecs.defaultCodecs().maxInMemorySize(1024 * 1024);
		codecs.defaultCodecs().jacksonJsonDecoder(new JacksonJsonDecoder(reading));
		codecs.defaultCodecs().jacksonJsonEncoder(new JacksonJsonEncoder(writing));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableWebFlux
	static class StockWebFlux implements WebFluxConfigurer {

		@Override
		public void configureHttpMessageCodecs(ServerCodecConfigurer configurer) {
			configureCodecs(configurer);
		}

	}

	/**
	 * Stock WebFlux whose JSON mapper, reading and writing, has Jackson's Blackbird module:
	 * stock tuned in one step.
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableWebFlux
	static class StockBlackbirdWebFlux implements WebFluxConfigurer {

		@Override
		public void configureHttpMessageCodecs(ServerCodecConfigurer configurer) {
			JsonMapper blackbird = JsonMapper.builder().addModule(new BlackbirdModule()).build();
			configureCodecs(configurer, blackbird, blackbird);
		}

	}

	/**
	 * WebFlux with Fastpath registered by hand: the codec configurer decorated (JSON,
	 * whole-body aggregation, lazy forms; JSON written in batches), the form controller
	 * arguments and the filter that deletes part files.
	 */
	@Configuration(proxyBeanMethods = false)
	static class FastpathWebFlux extends DelegatingWebFluxConfiguration {

		/** The batch cap, {@code -Dfastpath.batch-cap=...} to compare caps. */
		private static final int BATCH_CAP = Integer.getInteger("fastpath.batch-cap", JsonBatchEncoding.DEFAULT_CAP);

		@Bean
		@Override
		public ServerCodecConfigurer serverCodecConfigurer() {
			JsonArrayDecoding json = new JsonArrayDecoding();
			if (!json.optimizesCreators()) {
				throw new IllegalStateException("Creators are not optimized, as they are by default with the starter");
			}
			return new DecoratingServerCodecConfigurer(super.serverCodecConfigurer(),
					List.of(json, new WholeBodyAggregation(), new LazyFormDecoding()), List.of(new JsonBatchEncoding(BATCH_CAP)));
		}

		@Bean
		WebFluxConfigurer codecs() {
			return new WebFluxConfigurer() {

				@Override
				public void configureHttpMessageCodecs(ServerCodecConfigurer configurer) {
					configureCodecs(configurer);
				}

			};
		}

		@Bean
		FormArgumentsWebFluxConfigurer formArguments(ConfigurableListableBeanFactory beanFactory) {
			return new FormArgumentsWebFluxConfigurer(beanFactory);
		}

		/** As the starter registers it with the multipart readers: its cost is Fastpath's. */
		@Bean
		PartFilesWebFilter partFiles() {
			return new PartFilesWebFilter();
		}

	}

	@RestController
	static class Endpoints {

		static final JsonMapper MAPPER = JsonMapper.builder().build();

		/** What a repository holds: the records the responses are made of. */
		private static final List<Pojo> RECORDS = pojos(new Random(SEED));

		/** The mapper's writer with nothing between root values: the framing is written raw. */
		private static final ObjectWriter FRAMED = MAPPER.writer().withRootValueSeparator("");

		/** The thread a driver hands its rows from. */
		private static final Scheduler DRIVER = Schedulers.newSingle("driver", true);

		@GetMapping(path = "/write/flux", produces = { JSON, "application/x-ndjson", "text/event-stream" })
		Flux<Pojo> writeFlux(@RequestParam int count) {
			return Flux.fromIterable(RECORDS.subList(0, count));
		}

		/**
		 * The same records handed over one by one from a thread of their own, as a reactive
		 * database driver hands rows from its connection's event loop.
		 */
		@GetMapping(path = "/write/threaded", produces = { JSON, "application/x-ndjson", "text/event-stream" })
		Flux<Pojo> writeThreaded(@RequestParam int count) {
			return Flux.fromIterable(RECORDS.subList(0, count)).publishOn(DRIVER);
		}

		@GetMapping(path = "/write/list", produces = JSON)
		List<Pojo> writeList(@RequestParam int count) {
			return RECORDS.subList(0, count);
		}

		@GetMapping(path = "/write/bytes", produces = JSON)
		byte[] writeBytes(@RequestParam int count) {
			return MAPPER.writeValueAsBytes(RECORDS.subList(0, count));
		}

		@GetMapping(path = "/write/bytesflux", produces = JSON)
		Flux<byte[]> writeBytesFlux(@RequestParam int count) {
			return Flux.just(MAPPER.writeValueAsBytes(RECORDS.subList(0, count)));
		}

		/**
		 * The records as NDJSON or events, the first in a write of its own and the rest in
		 * one more, each flushed: the limit of a stream that sends its first value ahead.
		 */
		@GetMapping(path = "/write/firstahead", produces = { "application/x-ndjson", "text/event-stream" })
		Mono<Void> writeFirstAhead(@RequestParam int count, ServerHttpResponse response,
				@RequestHeader(HttpHeaders.ACCEPT) String accept) {
			return writeAhead(count, response, accept, Integer.MAX_VALUE);
		}

		/**
		 * The records as NDJSON or events, the first in a write of its own and the rest in
		 * slices of the writers' default batch cap, each flushed: the limit of a stream that
		 * sends its first value ahead and holds at most a cap of bytes a write.
		 */
		@GetMapping(path = "/write/cappedahead", produces = { "application/x-ndjson", "text/event-stream" })
		Mono<Void> writeCappedAhead(@RequestParam int count, ServerHttpResponse response,
				@RequestHeader(HttpHeaders.ACCEPT) String accept) {
			return writeAhead(count, response, accept, JsonBatchEncoding.DEFAULT_CAP);
		}

		/**
		 * The first record framed and written alone, then the rest framed into one array and
		 * written in slices of at most {@code cap} bytes (views of the array, not copies),
		 * each write flushed.
		 */
		private static Mono<Void> writeAhead(int count, ServerHttpResponse response, String accept, int cap) {
			boolean events = accept.startsWith("text/event-stream");
			response.getHeaders()
				.setContentType(events ? MediaType.parseMediaType("text/event-stream;charset=UTF-8")
						: MediaType.parseMediaType("application/x-ndjson"));
			DataBufferFactory buffers = response.bufferFactory();
			Mono<ByteBuffer> first = Mono.fromCallable(() -> ByteBuffer.wrap(framed(RECORDS.subList(0, 1), events)));
			Flux<ByteBuffer> rest = Flux.defer(() -> {
				byte[] bytes = framed(RECORDS.subList(1, count), events);
				int slices = bytes.length / cap + ((bytes.length % cap == 0) ? 0 : 1);
				return Flux.range(0, slices)
					.map((slice) -> ByteBuffer.wrap(bytes, slice * cap, Math.min(cap, bytes.length - slice * cap)).slice());
			});
			return response.writeAndFlushWith(Flux.concat(first, rest).map((bytes) -> Mono.just(buffers.wrap(bytes))));
		}

		/**
		 * The records as NDJSON lines or events, written into one array by one generator of
		 * the mapper's, the framing written raw between them.
		 */
		private static byte[] framed(List<Pojo> records, boolean events) {
			// Jackson's segmented builder, as writeValueAsBytes writes into: one array at the end
			ByteArrayBuilder out = new ByteArrayBuilder();
			try (JsonGenerator generator = FRAMED.createGenerator(out)) {
				for (Pojo record : records) {
					if (events) {
						generator.writeRaw("data:");
					}
					FRAMED.writeValue(generator, record);
					generator.writeRaw(events ? "\n\n" : "\n");
				}
			}
			return out.toByteArray();
		}

		/**
		 * The records handed over from the driver's thread, as {@code /write/threaded} hands
		 * them, collected there and written once: the limit of a source on a thread of its own.
		 */
		@GetMapping(path = "/write/threadedbytes", produces = JSON)
		Mono<byte[]> writeThreadedBytes(@RequestParam int count) {
			return Flux.fromIterable(RECORDS.subList(0, count))
				.publishOn(DRIVER)
				.collectList()
				.map(MAPPER::writeValueAsBytes);
		}

		@PostMapping("/form")
		Mono<String> form(ServerWebExchange exchange) {
			return exchange.getFormData().map((form) -> String.valueOf(form.getFirst("city")));
		}

		@PostMapping("/multipart")
		Mono<String> multipart(ServerWebExchange exchange) {
			return exchange.getMultipartData()
				.map((parts) -> (parts.getFirst("city") instanceof FormFieldPart city) ? city.value() : "none");
		}

		@PostMapping("/upload")
		Mono<Long> upload(ServerWebExchange exchange) {
			return exchange.getMultipartData()
				.flatMapMany((parts) -> Flux.fromIterable(parts.getOrDefault("file", List.of())))
				.concatMap(Part::content)
				.reduce(0L, (size, buffer) -> {
					long read = size + buffer.readableByteCount();
					DataBufferUtils.release(buffer);
					return read;
				});
		}

		/**
		 * A multipart body whose boundary is never found, read as {@code /upload} reads one:
		 * the error answered alike by both sides (stock's is a 500, Fastpath's a 400).
		 */
		@PostMapping("/hostile")
		Mono<String> hostile(ServerWebExchange exchange) {
			return exchange.getMultipartData()
				.map((parts) -> "parts " + parts.size())
				.onErrorResume((error) -> Mono.just("failed"));
		}

		/** The reference for {@code /upload}: the same bytes as the body itself, read whole. */
		@PostMapping("/raw")
		Mono<Long> raw(ServerWebExchange exchange) {
			return exchange.getRequest().getBody().reduce(0L, (size, buffer) -> {
				long read = size + buffer.readableByteCount();
				DataBufferUtils.release(buffer);
				return read;
			});
		}

		/** The file part moved to a file of the application's, the size of that answered. */
		@PostMapping("/transfer")
		Mono<Long> transfer(ServerWebExchange exchange) {
			return exchange.getMultipartData()
				.map((parts) -> (FilePart) Objects.requireNonNull(parts.getFirst("file")))
				.flatMap((file) -> Mono.usingWhen(
						Mono.fromCallable(() -> Files.createTempFile("fastpath-benchmark", ".bin"))
							.subscribeOn(Schedulers.boundedElastic()),
						(destination) -> file.transferTo(destination)
							.then(Mono.fromCallable(() -> Files.size(destination))),
						(destination) -> Mono.fromCallable(() -> Files.deleteIfExists(destination))
							.subscribeOn(Schedulers.boundedElastic())));
		}

		/** The form as events: the bytes of the file's events counted as they come. */
		@PostMapping("/partevents")
		Mono<Long> partEvents(@RequestBody Flux<PartEvent> events) {
			return events.reduce(0L, (size, event) -> {
				DataBuffer content = event.content();
				long read = size + ((event instanceof FilePartEvent) ? content.readableByteCount() : 0);
				DataBufferUtils.release(content);
				return read;
			});
		}

		@PostMapping("/bind/model")
		String bindModel(@ModelAttribute Contact contact) {
			return contact.describe();
		}

		@PostMapping("/bind/params")
		String bindParams(@FormParam String name, @FormParam String email, @FormParam int age,
				@FormParam String city, @FormParam String message) {
			return new Contact(name, email, age, city, message).describe();
		}

		@PostMapping("/records")
		int records(@RequestBody List<Pojo> records) {
			return records.size();
		}

		@PostMapping("/records/flux")
		Mono<Long> recordsFlux(@RequestBody Flux<Pojo> records) {
			return records.count();
		}

		@PostMapping("/orders")
		int orders(@RequestBody List<Order> orders) {
			return orders.size();
		}

	}

	/** Five form fields, bound. */
	record Contact(String name, String email, int age, String city, String message) {

		String describe() {
			return this.name + "|" + this.email + "|" + this.age + "|" + this.city + "|" + this.message;
		}

	}

}
