#include "sweep/space.hpp"

#include "util/error.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <unordered_set>

namespace kx::engine {

namespace {

std::optional<long long> parseInteger(const std::string& text) {
    long long v = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    return v;
}

std::uint64_t saturatingMultiply(std::uint64_t a, std::uint64_t b) {
    if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return std::numeric_limits<std::uint64_t>::max();
    return a * b;
}

// The allowed integers of an int parameter in [lo, hi].
std::vector<std::string> allowedInRange(const ParamSpec& p, long long lo, long long hi, const std::string& item) {
    if (p.type != ParamType::Int) throw InputError("--vary " + p.name + ": a range (" + item + ") needs an int parameter");
    if (lo > hi) throw InputError("--vary " + p.name + ": the range " + item + " is empty (its start is above its end)");
    std::vector<std::string> values;
    if (!p.allowed.empty()) {
        for (long long v : p.allowed)
            if (v >= lo && v <= hi) values.push_back(std::to_string(v));
    } else {
        const long long from = std::max(lo, p.minValue), to = std::min(hi, p.maxValue);
        if (to >= from && to - from >= kMaxRangeValues)
            throw InputError("--vary " + p.name + "=" + item + " names more than " + std::to_string(kMaxRangeValues) + " values");
        for (long long v = from; v <= to; ++v) values.push_back(std::to_string(v));
    }
    if (values.empty()) throw InputError("--vary " + p.name + ": no allowed value lies in " + item);
    return values;
}

// A compiler flag as a parameter of the space: a bool, or an int with its allowed values.
ParamSpec flagAsParam(const std::string& key) {
    ParamSpec p;
    p.name = key;
    const std::vector<std::string> values = allowedFlagValues(key);
    if (values == std::vector<std::string>{"false", "true"}) {
        p.type = ParamType::Bool;
        return p;
    }
    for (const std::string& v : values) p.allowed.push_back(*parseInteger(v));
    return p;
}

std::string unknownVary(const Template& tmpl, const std::string& name) {
    std::string known;
    for (const ParamSpec& q : tmpl.manifest().params) known += (known.empty() ? "" : ", ") + q.name;
    std::string flags;
    for (const CompileFlagKey& k : compileFlagKeys()) flags += (flags.empty() ? "" : ", ") + std::string(k.key);
    return "--vary '" + name + "': not a parameter of " + tmpl.id() + " (parameters: " + known + "; compiler flags: " + flags + ")";
}

}  // namespace

std::vector<std::string> allowedValues(const ParamSpec& p) {
    std::vector<std::string> values;
    switch (p.type) {
    case ParamType::Bool: return {"false", "true"};
    case ParamType::Enum:
        for (const EnumChoice& c : p.choices) values.push_back(c.name);
        return values;
    case ParamType::Int:
        if (!p.allowed.empty()) {
            for (long long v : p.allowed) values.push_back(std::to_string(v));
            return values;
        }
        return allowedInRange(p, p.minValue, p.maxValue, std::to_string(p.minValue) + ".." + std::to_string(p.maxValue));
    }
    return values;
}

SweepAxis parseVary(const Template& tmpl, const std::string& text) {
    const auto eq = text.find('=');
    SweepAxis axis;
    axis.param = text.substr(0, eq);
    const ParamSpec* p = tmpl.manifest().findParam(axis.param);
    ParamSpec flag;
    if (!p) {
        // A parameter of that name comes first; otherwise a compiler flag.
        axis.param = compileFlagKey(axis.param);
        if (axis.param.empty()) throw InputError(unknownVary(tmpl, text.substr(0, eq)));
        axis.flag = true;
        flag = flagAsParam(axis.param);
        p = &flag;
    }
    std::vector<std::string> values;
    if (eq == std::string::npos) {
        values = allowedValues(*p);
    } else {
        const std::string list = text.substr(eq + 1);
        if (list.empty()) throw InputError("--vary " + axis.param + "= lists no values (leave out '=' for every allowed value)");
        std::stringstream items(list);
        std::string item;
        while (std::getline(items, item, ',')) {
            if (item.empty()) throw InputError("--vary " + text + ": an empty value");
            if (const auto dots = item.find(".."); dots != std::string::npos) {
                const auto lo = parseInteger(item.substr(0, dots)), hi = parseInteger(item.substr(dots + 2));
                if (!lo || !hi) throw InputError("--vary " + axis.param + ": '" + item + "' is not a range of integers such as 2..4");
                for (std::string& v : allowedInRange(*p, *lo, *hi, item)) values.push_back(std::move(v));
            } else if (axis.flag) {
                // withFlag checks the value and gives its canonical text ("on" -> "true").
                values.push_back(withFlag(CompileFlags{}, axis.param, item).value(axis.param));
            } else {
                // withValues checks the value and gives its canonical text ("1" -> "true").
                values.push_back(tmpl.withValues(tmpl.defaultConfig(), {{axis.param, item}}).values.at(axis.param));
            }
        }
    }
    std::set<std::string> seen;
    for (std::string& v : values)
        if (seen.insert(v).second) axis.values.push_back(std::move(v));
    return axis;
}

std::uint64_t SweepSpace::size() const {
    std::uint64_t n = bases.size();
    for (const SweepAxis& a : axes) n = saturatingMultiply(n, a.values.size());
    return n;
}

Config SweepSpace::at(std::uint64_t index) const {
    std::vector<std::size_t> digits(axes.size());
    for (std::size_t i = axes.size(); i-- > 0;) {
        digits[i] = static_cast<std::size_t>(index % axes[i].values.size());
        index /= axes[i].values.size();
    }
    Config c = bases.at(static_cast<std::size_t>(index));
    for (std::size_t i = 0; i < axes.size(); ++i) {
        if (axes[i].flag) c.flags = withFlag(c.flags, axes[i].param, axes[i].values[digits[i]]);
        else c.values[axes[i].param] = axes[i].values[digits[i]];
    }
    return c;
}

SweepSpace makeSpace(const Template& tmpl, std::vector<Config> bases, const std::vector<std::string>& varies) {
    if (bases.empty()) throw InputError("a sweep of " + tmpl.id() + " needs at least one base config");
    SweepSpace space;
    space.templateId = tmpl.id();
    space.bases = std::move(bases);
    for (const std::string& text : varies) {
        SweepAxis axis = parseVary(tmpl, text);
        for (const SweepAxis& earlier : space.axes)
            if (earlier.param == axis.param && earlier.flag == axis.flag)
                throw InputError("--vary " + axis.param + " is given twice: list all its values in one --vary");
        space.axes.push_back(std::move(axis));
    }
    return space;
}

namespace {

// Floyd's algorithm: `sample` distinct indices of [0, size) without listing them, ascending. The
// engine's own draw (not std::uniform_int_distribution, whose results differ between standard
// libraries) keeps a seed's sample the same everywhere.
std::vector<std::uint64_t> drawIndices(std::uint64_t size, std::uint64_t sample, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::set<std::uint64_t> chosen;
    for (std::uint64_t j = size - sample; j < size; ++j) {
        const std::uint64_t t = rng() % (j + 1);
        if (!chosen.insert(t).second) chosen.insert(j);
    }
    return {chosen.begin(), chosen.end()};
}

}  // namespace

std::vector<Config> sampleConfigs(std::vector<Config> configs, std::uint64_t sample, std::uint64_t seed) {
    if (sample == 0 || sample >= configs.size()) return configs;
    std::vector<Config> out;
    for (std::uint64_t i : drawIndices(configs.size(), sample, seed)) out.push_back(std::move(configs[i]));
    return out;
}

std::vector<Config> spaceConfigs(const SweepSpace& space, std::uint64_t sample, std::uint64_t seed) {
    const std::uint64_t size = space.size();
    std::vector<std::uint64_t> indices;
    if (sample == 0 || sample >= size) {
        if (size > kMaxSweepConfigs)
            throw InputError("the space holds " + (size == std::numeric_limits<std::uint64_t>::max() ? std::string("too many") : std::to_string(size)) +
                             " configs, more than " + std::to_string(kMaxSweepConfigs) + ": vary fewer parameters or draw a --sample");
        for (std::uint64_t i = 0; i < size; ++i) indices.push_back(i);
    } else {
        indices = drawIndices(size, sample, seed);
    }
    std::vector<Config> configs;
    std::unordered_set<std::string> seen;
    for (std::uint64_t i : indices) {
        Config c = space.at(i);
        if (seen.insert(c.canonical()).second) configs.push_back(std::move(c));
    }
    return configs;
}

}  // namespace kx::engine
