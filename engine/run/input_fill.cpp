#include "run/input_fill.hpp"

#include "run/reference.hpp"
#include "templates/expression.hpp"
#include "util/error.hpp"
#include "util/parallel_ranges.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <unordered_set>

namespace kx::engine {
namespace {

constexpr double kExactLimit = 9007199254740992.0;  // 2^53: integers above lose exactness in a double

struct Rule {
    const char* name;
    int arity;
    bool integer;  // produces integers
};
constexpr Rule kRules[] = {{"uniform", 2, false}, {"normal", 2, false}, {"randint", 2, true},
                           {"unique", 2, true},   {"iota", 1, true},    {"const", 1, false}};

// Element-wise rules fill chunks of this many values, each from its own generator seeded by the
// argument's seed and the chunk's index, on as many threads as there are cores: the values depend
// on the seed alone, not on the machine, and 10^8 of them take a fraction of a second.
constexpr std::size_t kFillChunk = std::size_t{1} << 20;

std::uint64_t chunkSeed(std::uint64_t seed, std::size_t chunk) {  // splitmix64 of the pair
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ull * (chunk + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// v[i] = draw(rng) for every i, chunk by chunk as above, with a fresh `draw = makeDraw()` per
// chunk (a distribution may keep state between values: normal_distribution's second value).
template <class MakeDraw>
void fillChunks(std::vector<double>& v, std::uint64_t seed, MakeDraw makeDraw) {
    const std::size_t chunks = (v.size() + kFillChunk - 1) / kFillChunk;
    parallelRanges(chunks, 1, [&](std::size_t firstChunk, std::size_t endChunk) {
        for (std::size_t c = firstChunk; c < endChunk; ++c) {
            std::mt19937_64 rng(chunkSeed(seed, c));
            auto draw = makeDraw();
            const std::size_t end = std::min(v.size(), (c + 1) * kFillChunk);
            for (std::size_t i = c * kFillChunk; i < end; ++i) v[i] = draw(rng);
        }
    });
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\n");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\n") - b + 1);
}

// "a, min(b,c)" -> {"a", "min(b,c)"}: commas inside parentheses do not split.
std::vector<std::string> splitArguments(const std::string& s) {
    std::vector<std::string> out;
    std::string cur;
    int depth = 0;
    for (char c : s) {
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if (c == ',' && depth == 0) {
            out.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!trim(cur).empty() || !out.empty()) out.push_back(trim(cur));
    return out;
}

std::pair<double, double> representable(const DtypeInfo& t) {
    if (t.kind == DtypeKind::Float) return {-kExactLimit, kExactLimit};
    const int bits = 8 * t.bytes;
    double lo = t.kind == DtypeKind::Signed ? -std::ldexp(1.0, bits - 1) : 0.0;
    double hi = t.kind == DtypeKind::Signed ? std::ldexp(1.0, bits - 1) : std::ldexp(1.0, bits);  // exclusive
    return {std::max(lo, -kExactLimit), std::min(hi, kExactLimit)};
}

}  // namespace

FillSpec parseFill(const std::string& textIn, const DtypeInfo& dtype, const std::map<std::string, double>& variables) {
    std::string text = trim(textIn);
    if (text.empty()) text = dtype.kind == DtypeKind::Float ? "uniform(-1,1)" : "randint(0,1000)";
    auto bad = [&](const std::string& why) { return InputError("fill rule '" + textIn + "': " + why); };

    FillSpec spec;
    const std::string sortedWord = "sorted";
    if (text.size() > sortedWord.size() && text.compare(text.size() - sortedWord.size(), sortedWord.size(), sortedWord) == 0) {
        spec.sorted = true;
        text = trim(text.substr(0, text.size() - sortedWord.size()));
    }
    const auto open = text.find('(');
    if (open == std::string::npos || text.back() != ')')
        throw bad("expected NAME(ARGS), e.g. uniform(-1,1), randint(0,BINS), unique(0,2*n) or iota(0), optionally followed by 'sorted'");
    spec.kind = trim(text.substr(0, open));
    const Rule* rule = nullptr;
    for (const Rule& r : kRules)
        if (spec.kind == r.name) rule = &r;
    if (!rule) throw bad("unknown distribution '" + spec.kind + "' (uniform, normal, randint, unique, iota or const)");
    const auto parts = splitArguments(text.substr(open + 1, text.size() - open - 2));
    if (static_cast<int>(parts.size()) != rule->arity)
        throw bad(spec.kind + " takes " + std::to_string(rule->arity) + " argument" + (rule->arity == 1 ? "" : "s"));
    for (const std::string& p : parts) {
        try {
            spec.args.push_back(evaluateExpression(p, variables));
        } catch (const InputError& e) {
            throw bad(e.what());
        }
    }
    if (rule->arity == 2 && !(spec.args[0] < spec.args[1])) throw bad("the range is empty (its low end must be below its high end)");
    if (spec.kind == "normal" && spec.args[1] < 0) throw bad("a standard deviation cannot be negative");
    if (dtype.kind != DtypeKind::Float) {
        const auto [lo, hi] = representable(dtype);
        if (rule->integer && rule->arity == 2 && (spec.args[0] < lo || spec.args[1] > hi))
            throw bad("the range does not fit " + std::string(dtype.name));
        if (spec.kind == "uniform" || spec.kind == "normal") throw bad(std::string(dtype.name) + " is an integer type: use randint or unique");
    }
    return spec;
}

std::vector<double> generateFill(const FillSpec& spec, const DtypeInfo& dtype, std::size_t count, std::uint64_t seed) {
    std::vector<double> v = zeroedValues(count);
    const bool isFloat = dtype.kind == DtypeKind::Float;
    auto round = [&](double x) { return isFloat ? roundToDtype(x, dtype.name) : x; };
    if (spec.kind == "uniform") {
        fillChunks(v, seed, [&] {
            return [&, d = std::uniform_real_distribution<double>(spec.args[0], spec.args[1])](std::mt19937_64& rng) mutable { return round(d(rng)); };
        });
    } else if (spec.kind == "normal") {
        fillChunks(v, seed, [&] {
            return [&, d = std::normal_distribution<double>(spec.args[0], spec.args[1])](std::mt19937_64& rng) mutable { return round(d(rng)); };
        });
    } else if (spec.kind == "randint") {
        const auto lo = static_cast<long long>(std::ceil(spec.args[0]));
        const auto hi = static_cast<long long>(std::ceil(spec.args[1])) - 1;
        fillChunks(v, seed, [&] {
            return [&, d = std::uniform_int_distribution<long long>(lo, std::max(lo, hi))](std::mt19937_64& rng) mutable {
                return round(static_cast<double>(d(rng)));
            };
        });
    } else if (spec.kind == "unique") {
        std::mt19937_64 rng(seed);
        const auto lo = static_cast<long long>(std::ceil(spec.args[0]));
        const auto hi = static_cast<long long>(std::ceil(spec.args[1]));  // exclusive
        const auto range = static_cast<unsigned long long>(hi - lo);
        if (range < count)
            throw InputError("fill rule unique(" + std::to_string(lo) + "," + std::to_string(hi) + ") cannot give " + std::to_string(count) +
                             " distinct values");
        if (range <= 4 * static_cast<unsigned long long>(count) + 1024) {
            // Dense: a shuffled prefix of the whole range.
            std::vector<long long> all(range);
            std::iota(all.begin(), all.end(), lo);
            for (std::size_t i = 0; i < count; ++i) {
                std::uniform_int_distribution<unsigned long long> pick(i, range - 1);
                std::swap(all[i], all[pick(rng)]);
                v[i] = static_cast<double>(all[i]);
            }
        } else {
            // Sparse: rejection against the values taken so far.
            std::unordered_set<long long> taken;
            taken.reserve(count * 2);
            std::uniform_int_distribution<long long> d(lo, hi - 1);
            for (double& x : v) {
                long long k;
                do k = d(rng);
                while (!taken.insert(k).second);
                x = static_cast<double>(k);
            }
        }
    } else if (spec.kind == "iota") {
        for (std::size_t i = 0; i < count; ++i) v[i] = round(spec.args[0] + static_cast<double>(i));
    } else if (spec.kind == "const") {
        std::fill(v.begin(), v.end(), round(spec.args[0]));
    } else {
        throw InputError("unknown fill rule '" + spec.kind + "'");
    }
    if (!isFloat) {
        // iota and const may run past the type.
        const auto [lo, hi] = representable(dtype);
        for (double x : v)
            if (x < lo || x >= hi || x != std::floor(x))
                throw InputError("fill rule " + spec.kind + " gives " + std::to_string(x) + ", which is not a " + std::string(dtype.name));
    }
    if (spec.sorted) std::sort(v.begin(), v.end());
    return v;
}

}  // namespace kx::engine
