package io.fastpath.form;

import java.lang.reflect.Method;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.context.expression.StandardBeanExpressionResolver;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.annotation.SynthesizingMethodParameter;
import org.springframework.format.support.DefaultFormattingConversionService;
import org.springframework.http.MediaType;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.util.MultiValueMap;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.support.ConfigurableWebBindingInitializer;
import org.springframework.web.reactive.BindingContext;
import org.springframework.web.reactive.result.method.annotation.RequestParamMethodArgumentResolver;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link FormParamMethodArgumentResolver}: the same outcome as WebFlux's
 * {@code @RequestParam} (whose {@code AbstractNamedValueArgumentResolver} it follows)
 * for every kind of argument and value, and one read of the form however many arguments.
 */
class FormParamMethodArgumentResolverTests {

	private static final ReactiveAdapterRegistry REGISTRY = ReactiveAdapterRegistry.getSharedInstance();

	private final FormParamMethodArgumentResolver resolver = new FormParamMethodArgumentResolver(null, REGISTRY);

	private final BindingContext bindingContext = bindingContext();

	@Test
	void resolvesLikeRequestParamForEveryKindOfArgumentAndValue() throws Exception {
		RequestParamMethodArgumentResolver stock = new RequestParamMethodArgumentResolver(null, REGISTRY, false);
		Method form = method("form");
		Method query = method("query");
		List<List<String>> inputs = List.of(List.of(), List.of(""), List.of("5"), List.of("x"), List.of("GREEN"),
				List.of("true"), List.of("1", "2"), List.of("", "3"));
		int compared = 0;
		for (int index = 0; index < form.getParameterCount(); index++) {
			MethodParameter formParameter = parameter(form, index);
			MethodParameter queryParameter = parameter(query, index);
			String name = queryParameter.getParameterName();
			for (List<String> values : inputs) {
				String fields = values.stream()
					.map((value) -> name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8))
					.collect(Collectors.joining("&"));
				ServerWebExchange formExchange = MockServerWebExchange
					.from(MockServerHttpRequest.post("/").contentType(MediaType.APPLICATION_FORM_URLENCODED).body(fields));
				ServerWebExchange queryExchange = MockServerWebExchange.from(MockServerHttpRequest.post("/?" + fields));
				String expected = outcome(stock.resolveArgument(queryParameter, bindingContext(), queryExchange));
				String actual = outcome(this.resolver.resolveArgument(formParameter, bindingContext(), formExchange));
				assertThat(actual).as(name + " = " + values).isEqualTo(expected);
				compared++;
			}
		}
		assertThat(compared).isEqualTo(10 * inputs.size());
	}

	@Test
	void asksForTheFormOnceHoweverManyArguments() throws Exception {
		AtomicInteger reads = new AtomicInteger();
		ServerWebExchange exchange = new ServerWebExchangeDecorator(MockServerWebExchange.from(MockServerHttpRequest
			.post("/")
			.contentType(MediaType.APPLICATION_FORM_URLENCODED)
			.body("s=a&i=1&boxed=2&flag=true&l=3&l=4&opt=o&dflt=&arr=5&color=RED"))) {

			@Override
			public Mono<MultiValueMap<String, String>> getFormData() {
				return super.getFormData().doOnSubscribe((subscription) -> reads.incrementAndGet());
			}

		};
		Method form = method("form");
		List<Mono<Object>> arguments = new ArrayList<>();
		for (int index = 0; index < form.getParameterCount(); index++) {
			arguments.add(this.resolver.resolveArgument(parameter(form, index), this.bindingContext, exchange));
		}
		List<String> values = new ArrayList<>();
		for (Mono<Object> argument : arguments) {
			values.add(outcome(argument));
		}
		assertThat(values).containsExactly("a", "1", "2", "true", "[3, 4]", "Optional[o]", "d", "[5]", "RED",
				"Optional[1]");
		assertThat(reads).hasValue(1);
	}

	@Test
	void resolvesPlaceholdersAndExpressionsInNamesAndDefaultValues() throws Exception {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.addEmbeddedValueResolver((value) -> value.replace("${field}", "s").replace("${fallback}", "f"));
		beanFactory.setBeanExpressionResolver(new StandardBeanExpressionResolver());
		FormParamMethodArgumentResolver resolver = new FormParamMethodArgumentResolver(beanFactory, REGISTRY);
		Method method = method("placeholders");
		ServerWebExchange exchange = MockServerWebExchange
			.from(MockServerHttpRequest.post("/").contentType(MediaType.APPLICATION_FORM_URLENCODED).body("s=named"));
		assertThat(outcome(resolver.resolveArgument(parameter(method, 0), this.bindingContext, exchange)))
			.isEqualTo("named");
		assertThat(outcome(resolver.resolveArgument(parameter(method, 1), this.bindingContext, exchange)))
			.isEqualTo("f6");
	}

	private static String outcome(Mono<Object> argument) {
		try {
			Object value = argument.block();
			if (value instanceof int[] array) {
				return Arrays.toString(array);
			}
			return String.valueOf(value);
		}
		catch (ResponseStatusException ex) {
			return ex.getClass().getSimpleName() + " " + ex.getStatusCode();
		}
		catch (RuntimeException ex) {
			return ex.getClass().getSimpleName();
		}
	}

	private static MethodParameter parameter(Method method, int index) {
		// As in a HandlerMethod: annotations synthesized, so that value is an alias of name
		MethodParameter parameter = SynthesizingMethodParameter.forExecutable(method, index);
		parameter.initParameterNameDiscovery(new DefaultParameterNameDiscoverer());
		return parameter;
	}

	private static Method method(String name) {
		return Arrays.stream(Arguments.class.getDeclaredMethods())
			.filter((method) -> method.getName().equals(name))
			.findFirst()
			.orElseThrow();
	}

	private static BindingContext bindingContext() {
		ConfigurableWebBindingInitializer initializer = new ConfigurableWebBindingInitializer();
		initializer.setConversionService(new DefaultFormattingConversionService());
		return new BindingContext(initializer);
	}

	enum Color {

		RED, GREEN

	}

	@SuppressWarnings("unused")
	static class Arguments {

		void form(@FormParam String s, @FormParam int i, @FormParam(required = false) @Nullable Integer boxed,
				@FormParam(required = false) boolean flag, @FormParam("l") List<Integer> list,
				@FormParam Optional<String> opt, @FormParam(defaultValue = "d") String dflt, @FormParam int[] arr,
				@FormParam Color color, @FormParam("i") Optional<Integer> optionalNumber) {
		}

		void query(@RequestParam String s, @RequestParam int i, @RequestParam(required = false) @Nullable Integer boxed,
				@RequestParam(required = false) boolean flag, @RequestParam("l") List<Integer> list,
				@RequestParam Optional<String> opt, @RequestParam(defaultValue = "d") String dflt,
				@RequestParam int[] arr, @RequestParam Color color, @RequestParam("i") Optional<Integer> optionalNumber) {
		}

		void placeholders(@FormParam("${field}") String named, @FormParam(defaultValue = "${fallback}#{2 * 3}") String fallback) {
		}

	}

}
