package io.fastpath.json;

import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The bean that {@link RandomJson} writes for the Pojo targets: primitives that must not
 * be {@code null}, wrappers that may be, an enum, collections, an untyped map and a
 * nested child of the same type.
 */
class TestPojo {

	private @Nullable String name;

	private long id;

	private int rank;

	private @Nullable Integer count;

	private double score;

	private float ratio;

	private @Nullable Boolean flag;

	private @Nullable Level level;

	private @Nullable List<String> tags;

	private @Nullable List<Long> values;

	private @Nullable Map<String, Object> attributes;

	private @Nullable TestPojo child;

	public @Nullable String getName() {
		return this.name;
	}

	public void setName(@Nullable String name) {
		this.name = name;
	}

	public long getId() {
		return this.id;
	}

	public void setId(long id) {
		this.id = id;
	}

	public int getRank() {
		return this.rank;
	}

	public void setRank(int rank) {
		this.rank = rank;
	}

	public @Nullable Integer getCount() {
		return this.count;
	}

	public void setCount(@Nullable Integer count) {
		this.count = count;
	}

	public double getScore() {
		return this.score;
	}

	public void setScore(double score) {
		this.score = score;
	}

	public float getRatio() {
		return this.ratio;
	}

	public void setRatio(float ratio) {
		this.ratio = ratio;
	}

	public @Nullable Boolean getFlag() {
		return this.flag;
	}

	public void setFlag(@Nullable Boolean flag) {
		this.flag = flag;
	}

	public @Nullable Level getLevel() {
		return this.level;
	}

	public void setLevel(@Nullable Level level) {
		this.level = level;
	}

	public @Nullable List<String> getTags() {
		return this.tags;
	}

	public void setTags(@Nullable List<String> tags) {
		this.tags = tags;
	}

	public @Nullable List<Long> getValues() {
		return this.values;
	}

	public void setValues(@Nullable List<Long> values) {
		this.values = values;
	}

	public @Nullable Map<String, Object> getAttributes() {
		return this.attributes;
	}

	public void setAttributes(@Nullable Map<String, Object> attributes) {
		this.attributes = attributes;
	}

	public @Nullable TestPojo getChild() {
		return this.child;
	}

	public void setChild(@Nullable TestPojo child) {
		this.child = child;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		if (this == other) {
			return true;
		}
		if (!(other instanceof TestPojo that)) {
			return false;
		}
		return this.id == that.id && this.rank == that.rank && Double.compare(this.score, that.score) == 0
				&& Float.compare(this.ratio, that.ratio) == 0 && Objects.equals(this.name, that.name)
				&& Objects.equals(this.count, that.count) && Objects.equals(this.flag, that.flag)
				&& this.level == that.level && Objects.equals(this.tags, that.tags)
				&& Objects.equals(this.values, that.values) && Objects.equals(this.attributes, that.attributes)
				&& Objects.equals(this.child, that.child);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.name, this.id, this.rank, this.count, this.score, this.ratio, this.flag, this.level,
				this.tags, this.values, this.attributes, this.child);
	}

	@Override
	public String toString() {
		return "TestPojo{name=" + this.name + ", id=" + this.id + ", rank=" + this.rank + ", count=" + this.count
				+ ", score=" + this.score + ", ratio=" + this.ratio + ", flag=" + this.flag + ", level=" + this.level
				+ ", tags=" + this.tags + ", values=" + this.values + ", attributes=" + this.attributes + ", child="
				+ this.child + "}";
	}

	enum Level {

		LOW, MEDIUM, HIGH

	}

}
