#include "templates/template.hpp"

#include "templates/expression.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <map>
#include <optional>
#include <cmath>

namespace kx::engine {
namespace {

std::string formatNumber(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15) return std::to_string(static_cast<long long>(v));
    char text[64];
    std::snprintf(text, sizeof text, "%g", v);
    return text;
}

std::optional<double> numericAttribute(const std::string& text) {
    double value = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

// An expression's value as a count or dimension. Casting a double outside long long's range is
// undefined behaviour, so infinities and values beyond 2^62 are refused with what they are.
long long toCount(double value, const std::string& what) {
    if (!std::isfinite(value) || std::fabs(value) > 4.6e18)
        throw InputError(what + " is " + formatNumber(value) + ", beyond any count a kernel can use (a division by zero or a size too large?)");
    return static_cast<long long>(value);
}

const EnumChoice* findChoice(const ParamSpec& p, const std::string& name) {
    for (const EnumChoice& c : p.choices)
        if (c.name == name) return &c;
    return nullptr;
}

std::string allowedText(const ParamSpec& p) {
    std::string text;
    switch (p.type) {
    case ParamType::Bool: return "true or false";
    case ParamType::Enum:
        for (const EnumChoice& c : p.choices) text += (text.empty() ? "" : ", ") + c.name;
        return "one of " + text;
    case ParamType::Int:
        if (p.allowed.empty()) return "an integer from " + std::to_string(p.minValue) + " to " + std::to_string(p.maxValue);
        for (long long v : p.allowed) text += (text.empty() ? "" : ", ") + std::to_string(v);
        return "one of " + text;
    }
    return text;
}

// Replaces {NAME} in a constraint message with the variable's value, or an enum parameter's
// choice ({dtype}: "tf32"); {arch} is the arch name.
std::string fillMessage(const std::string& message, const VariableMap& vars, const Config& config, const std::string& archName) {
    std::string out;
    for (std::size_t i = 0; i < message.size(); ++i) {
        if (message[i] == '{') {
            const std::size_t close = message.find('}', i);
            if (close != std::string::npos) {
                const std::string key = message.substr(i + 1, close - i - 1);
                if (key == "arch") { out += archName; i = close; continue; }
                if (auto it = vars.find(key); it != vars.end()) { out += formatNumber(it->second); i = close; continue; }
                if (auto it = config.values.find(key); it != config.values.end()) { out += it->second; i = close; continue; }
            }
        }
        out += message[i];
    }
    return out;
}

}  // namespace

Template::Template(TemplateManifest manifest, std::string kernelSource, SharedPieces pieces)
    : m_manifest(std::move(manifest)), m_kernelSource(std::move(kernelSource)), m_pieces(std::move(pieces)) {
    m_sources["cuda"] = m_kernelSource;
}

Template::Template(TemplateManifest manifest, std::map<std::string, std::string> sourcesByLanguage, SharedPieces pieces)
    : m_manifest(std::move(manifest)), m_sources(std::move(sourcesByLanguage)), m_pieces(std::move(pieces)) {
    if (auto it = m_sources.find("cuda"); it != m_sources.end()) m_kernelSource = it->second;
    else if (!m_sources.empty()) m_kernelSource = m_sources.begin()->second;
}

const std::string& Template::kernelSource(const std::string& language) const {
    static const std::string kNone;
    auto it = m_sources.find(language);
    return it == m_sources.end() ? kNone : it->second;
}

std::string Template::languageFor(const Arch& arch) const {
    if (!hasLanguage("cuda")) return "hip";
    return arch.vendor == Vendor::Amd && hasLanguage("hip") ? "hip" : "cuda";
}

Config Template::defaultConfig() const {
    Config c;
    c.templateId = m_manifest.id;
    for (const ParamSpec& p : m_manifest.params) c.values[p.name] = p.defaultValue;
    return c;
}

Config Template::withValues(const Config& base, const std::map<std::string, std::string>& overrides) const {
    Config c = base;
    for (const auto& [key, value] : overrides) {
        const ParamSpec* p = m_manifest.findParam(key);
        if (!p) {
            std::string known;
            for (const ParamSpec& q : m_manifest.params) known += (known.empty() ? "" : ", ") + q.name;
            throw InputError("'" + key + "' is not a parameter of " + m_manifest.id + " (parameters: " + known + ")");
        }
        std::string canonical = value;
        bool ok = false;
        switch (p->type) {
        case ParamType::Int: {
            long long v = 0;
            const char* end = value.data() + value.size();
            auto [ptr, ec] = std::from_chars(value.data(), end, v);
            if (ec == std::errc() && ptr == end) {
                canonical = std::to_string(v);
                ok = p->allowed.empty() ? (v >= p->minValue && v <= p->maxValue)
                                        : std::find(p->allowed.begin(), p->allowed.end(), v) != p->allowed.end();
            }
            break;
        }
        case ParamType::Bool:
            if (value == "true" || value == "1" || value == "on") { canonical = "true"; ok = true; }
            if (value == "false" || value == "0" || value == "off") { canonical = "false"; ok = true; }
            break;
        case ParamType::Enum: ok = findChoice(*p, value) != nullptr; break;
        }
        if (!ok) throw InputError(key + "=" + value + " is not allowed: " + key + " must be " + allowedText(*p));
        c.values[key] = canonical;
    }
    return c;
}

std::map<std::string, double> Template::variables(const Config& config, const Arch& arch, const SizeMap& sizes) const {
    if (config.templateId != m_manifest.id)
        throw InputError("config is for '" + config.templateId + "', not '" + m_manifest.id + "'");
    VariableMap vars = arch.expressionVariables();
    for (const ParamSpec& p : m_manifest.params) {
        const std::string& text = config.at(p.name);
        switch (p.type) {
        case ParamType::Int: vars[p.name] = static_cast<double>(std::stoll(text)); break;
        case ParamType::Bool: vars[p.name] = text == "true" ? 1.0 : 0.0; break;
        case ParamType::Enum: {
            const EnumChoice* choice = findChoice(p, text);
            if (!choice) throw InputError(p.name + "=" + text + " is not allowed: " + p.name + " must be " + allowedText(p));
            for (const auto& [key, value] : choice->attributes)
                if (auto number = numericAttribute(value)) vars[key] = *number;
            break;
        }
        }
    }
    for (const auto& [name, value] : sizes) vars[name] = static_cast<double>(value);
    for (const DerivedSpec& d : m_manifest.derived) {
        try {
            vars[d.name] = evaluateExpression(d.expr, vars);
        } catch (const InputError& e) {
            throw InputError(m_manifest.manifestFile + ":" + std::to_string(d.line) + ": derived '" + d.name + "': " + e.what());
        }
    }
    if (sizes.empty()) return vars;  // a config alone (validation, the source): no problem yet
    for (const QuantitySpec& q : m_manifest.quantities) {
        try {
            vars[q.name] = evaluateExpression(q.expr, vars);
        } catch (const InputError& e) {
            throw InputError(m_manifest.manifestFile + ":" + std::to_string(q.line) + ": quantity '" + q.name + "': " + e.what());
        }
    }
    for (const ConstraintSpec& r : m_manifest.requirements) {
        double holds = 0;
        try {
            holds = evaluateExpression(r.expr, vars);
        } catch (const InputError& e) {
            throw InputError(m_manifest.manifestFile + ":" + std::to_string(r.line) + ": requirement: " + e.what());
        }
        if (holds == 0) throw InputError("this problem does not suit " + m_manifest.id + ": " + fillMessage(r.message, vars, config, arch.name));
    }
    return vars;
}

std::vector<const ParamSpec*> Template::inactiveParams(const Config& config, const Arch& arch) const {
    std::vector<const ParamSpec*> inactive;
    VariableMap vars;
    try {
        vars = variables(config, arch);
        for (const ParamSpec& p : m_manifest.params)
            if (!p.applies.empty() && evaluateExpression(p.applies, vars) == 0) inactive.push_back(&p);
    } catch (const InputError&) {
        return {};  // validate() says what is wrong with the config
    }
    return inactive;
}

std::vector<Violation> Template::validate(const Config& config, const Arch& arch) const {
    const VariableMap vars = variables(config, arch);
    std::vector<Violation> violations;
    // A derived value that divides by zero would reach the source as "inf": the config is refused
    // with the reason, whatever the constraints say.
    for (const DerivedSpec& d : m_manifest.derived)
        if (!std::isfinite(vars.at(d.name)))
            violations.push_back({"derived value " + d.name + " = " + d.expr + " divides by zero for this config", d.expr, d.line});
    for (const ConstraintSpec& c : m_manifest.constraints) {
        double holds = 0;
        try {
            holds = evaluateExpressionStrict(c.expr, vars);
        } catch (const InputError& e) {
            const std::string what = e.what();
            // Strict evaluation: a remainder by zero is the config's problem, not the rule's.
            if (what.find("by zero") != std::string::npos || what.find("infinite") != std::string::npos) {
                violations.push_back({"the rule " + c.expr + " cannot hold: " + what, c.expr, c.line});
                continue;
            }
            throw InputError(m_manifest.manifestFile + ":" + std::to_string(c.line) + ": constraint: " + what);
        }
        if (holds == 0) violations.push_back({fillMessage(c.message, vars, config, arch.name), c.expr, c.line});
    }
    if (const std::string problem = compileFlagsProblem(config.flags, arch); !problem.empty())
        violations.push_back({problem, "compiler flags", 0});
    return violations;
}

std::string Template::configName(const Config& config) const {
    const std::string& pattern = m_manifest.namePattern;
    std::string out;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == '{') {
            const std::size_t close = pattern.find('}', i);
            if (close == std::string::npos)
                throw InputError(m_manifest.manifestFile + ": name pattern has an unclosed '{'");
            std::string key = pattern.substr(i + 1, close - i - 1);
            if (const std::size_t mark = key.find('?'); mark != std::string::npos) {
                // An optional part, {PARAM?} or {PARAM?prefix}: left out at the parameter's
                // default, so adding a parameter to a template keeps the names of the configs
                // that existed before.
                const std::string prefix = mark + 1 < key.size() ? key.substr(mark + 1) : "_";
                key.resize(mark);
                const ParamSpec* p = m_manifest.findParam(key);
                if (!p || config.at(key) != p->defaultValue) out += prefix + config.at(key);
            } else {
                out += config.at(key);
            }
            i = close;
        } else {
            out += pattern[i];
        }
    }
    return out + config.flags.nameSuffix();
}

std::map<std::string, std::string> Template::placeholderValues(const Config& config, const Arch& arch) const {
    std::map<std::string, std::string> text;
    const VariableMap vars = variables(config, arch);
    for (const ParamSpec& p : m_manifest.params) {
        text[p.name] = config.at(p.name);
        if (p.type == ParamType::Enum)
            for (const auto& [key, value] : findChoice(p, config.at(p.name))->attributes) text[key] = value;
    }
    for (const DerivedSpec& d : m_manifest.derived) text[d.name] = formatNumber(vars.at(d.name));
    text["KERNEL_NAME"] = configName(config);
    text["ARCH"] = arch.name;
    text["WARP_SIZE"] = std::to_string(arch.warpSize);
    return text;
}

std::string Template::substitute(const std::string& src, const std::map<std::string, std::string>& text,
                                 const std::string& where, int firstLine) {
    std::string out;
    out.reserve(src.size() + 256);
    int line = firstLine;
    for (std::size_t i = 0; i < src.size(); ++i) {
        if (src[i] == '\n') ++line;
        if (src[i] == '$' && i + 1 < src.size() && src[i + 1] == '{') {
            const std::size_t close = src.find('}', i + 2);
            const std::string location = where + ":" + std::to_string(line) + ": ";
            if (close == std::string::npos) throw InputError(location + "unclosed placeholder '${'");
            const std::string key = src.substr(i + 2, close - i - 2);
            auto it = text.find(key);
            if (it == text.end()) throw InputError(location + "placeholder ${" + key + "} names no parameter, attribute or derived value");
            out += it->second;
            i = close;
            continue;
        }
        out += src[i];
    }
    return out;
}

std::string Template::renderSource(const std::string& source, const std::map<std::string, std::string>& values,
                                   const std::string& where) const {
    std::string out;
    std::size_t start = 0;  // of the source's text not yet rendered
    int startLine = 1;
    for (const SharedPieceInclude& inc : sharedPieceIncludes(source)) {
        std::size_t lineStart = start;
        for (int l = startLine; l < inc.line; ++l) lineStart = source.find('\n', lineStart) + 1;
        out += substitute(source.substr(start, lineStart - start), values, where, startLine);
        const auto piece = m_pieces.find(inc.name);
        if (piece == m_pieces.end())
            throw InputError(where + ":" + std::to_string(inc.line) + ": shared piece " + inc.name + " was not loaded with the template");
        out += substitute(piece->second, values, inc.local ? m_manifest.folder + "/" + inc.name : "templates/" + inc.name, 1);
        if (!out.empty() && out.back() != '\n') out += '\n';
        const std::size_t lineEnd = source.find('\n', lineStart);
        start = lineEnd == std::string::npos ? source.size() : lineEnd + 1;
        startLine = inc.line + 1;
    }
    return out + substitute(source.substr(start), values, where, startLine);
}

std::string Template::render(const Config& config, const Arch& arch) const {
    if (languageFor(arch) == "hip") return render(config, arch, "hip");
    return renderSource(m_kernelSource, placeholderValues(config, arch), m_manifest.folder + "/" + m_manifest.sourceFile);
}

std::string Template::render(const Config& config, const Arch& arch, const std::string& language) const {
    auto it = m_sources.find(language);
    if (it == m_sources.end()) throw InputError("template '" + m_manifest.id + "' has no " + language + " source");
    auto file = m_manifest.sourceFiles.find(language);
    const std::string name = file != m_manifest.sourceFiles.end() ? file->second : m_manifest.sourceFile;
    return renderSource(it->second, placeholderValues(config, arch), m_manifest.folder + "/" + name);
}

namespace {

// Evaluates a list of a tensor map's expressions, each within [low, high]. A value out of range is
// reported with its expression, in parentheses unless it is a single name or number.
std::vector<long long> evaluateWithin(const std::vector<std::string>& exprs, const VariableMap& vars, const std::string& what, long long low,
                                      long long high, const std::string& rule) {
    std::vector<long long> values;
    for (const std::string& e : exprs) {
        const double value = evaluateExpression(e, vars);
        const long long v = static_cast<long long>(std::llround(value));
        if (value != static_cast<double>(v) || v < low || v > high) {
            const bool plain = std::all_of(e.begin(), e.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
            throw InputError(what + " " + (plain ? e : "(" + e + ")") + " = " + formatNumber(value) + " (" + rule + ")");
        }
        values.push_back(v);
    }
    return values;
}

// Evaluates a tensor map's dims, box, corners and strides, and checks what the manifest cannot:
// TMA's ranges (boxes of 1..256 elements a dimension; an im2col column of at most 256 channels
// and 1024 pixels, its corners within the signed range the rank leaves them, traversal strides
// 1..8) and dims that fit the buffer they describe.
// A tensor map's buffer: a name, or "CONDITION ? NAME : NAME" chosen by the config and problem
// (conv_wgmma copies a folded copy of x when the config folds).
std::string chooseBuffer(const std::string& of, const VariableMap& vars, const std::string& what) {
    const std::size_t question = of.find('?');
    if (question == std::string::npos) return of;
    const std::size_t colon = of.find(':', question);
    if (colon == std::string::npos) throw InputError(what + ": of=\"" + of + "\" has a '?' but no ':' (CONDITION ? NAME : NAME)");
    return foldWhitespace(evaluateExpression(of.substr(0, question), vars) != 0 ? of.substr(question + 1, colon - question - 1)
                                                                                : of.substr(colon + 1));
}

void resolveTensorMap(const ArgSpec& a, const VariableMap& vars, const std::string& ofText, const std::string& swizzle,
                      const std::vector<ResolvedArg>& earlier, ResolvedArg& r) {
    const std::string what = "tensor map '" + a.name + "'";
    const std::string of = chooseBuffer(ofText, vars, what);
    r.of = of;
    const auto described = std::find_if(earlier.begin(), earlier.end(), [&](const ResolvedArg& b) { return b.name == of; });
    if (described == earlier.end() || (described->role != "in" && described->role != "out" && described->role != "inout" && described->role != "scratch"))
        throw InputError(what + ": of=\"" + of + "\" is no earlier buffer argument (in, out, inout or scratch)");
    r.mode = a.mode;
    r.swizzle = swizzle;
    if (!isTensorMapSwizzle(swizzle)) {  // an expression giving the bytes
        const auto bytes = evaluateWithin({swizzle}, vars, what + ": swizzle", 0, 128, "0, 32, 64 or 128 bytes");
        static const std::map<long long, std::string> kNames = {{0, "none"}, {32, "32B"}, {64, "64B"}, {128, "128B"}};
        const auto name = kNames.find(bytes[0]);
        if (name == kNames.end())
            throw InputError(what + ": swizzle " + swizzle + " = " + std::to_string(bytes[0]) + " bytes (none, 32, 64 or 128)");
        r.swizzle = name->second;
    }
    r.dims = evaluateWithin(a.dims, vars, what + ": dimension", 1, std::numeric_limits<long long>::max(), "each must be at least 1");
    long long elements = 1;
    for (long long d : r.dims)
        if (__builtin_mul_overflow(elements, d, &elements)) throw InputError(what + " spans more elements than a 64-bit count holds");
    if (a.mode == "im2col") {
        r.box = evaluateWithin({a.box[0]}, vars, what + ": channels per pixel", 1, 256, "TMA loads 1 to 256 channels a pixel");
        const auto pixels = evaluateWithin({a.box[1]}, vars, what + ": pixels per column", 1, 1024, "TMA loads 1 to 1024 pixels a column");
        r.box.push_back(pixels[0]);
        // The corners share 16 bits between the spatial dimensions: 16, 8 or 5 bits each.
        const int bits = a.dims.size() == 3 ? 16 : a.dims.size() == 4 ? 8 : 5;
        const long long high = (1LL << (bits - 1)) - 1, low = -(1LL << (bits - 1));
        const std::string range = "an im2col corner of a rank-" + std::to_string(a.dims.size()) + " map is within " + std::to_string(low) + ".." +
                                  std::to_string(high);
        r.lower = evaluateWithin(a.lower, vars, what + ": lower corner", low, high, range);
        r.upper = evaluateWithin(a.upper, vars, what + ": upper corner", low, high, range);
    } else {
        r.box = evaluateWithin(a.box, vars, what + ": box size", 1, 256, "TMA boxes are 1 to 256 elements per dimension");
    }
    r.strides = evaluateWithin(a.strides, vars, what + ": traversal stride", 1, 8, "TMA traversal strides are 1 to 8");
    if (elements > described->count)
        throw InputError(what + " spans " + std::to_string(elements) + " elements, but '" + of + "' holds " + std::to_string(described->count));
}

}  // namespace

std::vector<ResolvedArg> Template::resolveArgs(const Config& config, const Arch& arch, const SizeMap& sizes) const {
    const auto text = placeholderValues(config, arch);
    const VariableMap vars = variables(config, arch, sizes);
    std::vector<ResolvedArg> out;
    for (const ArgSpec& a : m_manifest.args) {
        ResolvedArg r;
        r.name = a.name;
        r.role = a.role;
        r.type = substitute(a.type, text, m_manifest.manifestFile, a.line);
        r.zeroEachRun = a.zeroEachRun;
        if (a.role == "size") {
            auto it = sizes.find(a.name);
            if (it == sizes.end()) throw InputError("size '" + a.name + "' of " + m_manifest.id + " has no value");
            r.count = it->second;
        } else if (a.role == "scalar") {
            r.value = evaluateExpression(a.value, vars);
        } else if (a.role == "tensor_map") {
            resolveTensorMap(a, vars, substitute(a.of, text, m_manifest.manifestFile, a.line), substitute(a.swizzle, text, m_manifest.manifestFile, a.line),
                             out, r);
        } else if (a.role != "pass") {
            r.count = toCount(evaluateExpression(a.count, vars), "arg '" + a.name + "' of " + m_manifest.id + ": element count " + a.count);
            if (r.count < 0) throw InputError("arg '" + a.name + "' of " + m_manifest.id + " would have " + std::to_string(r.count) + " elements");
            r.fill = substitute(a.fill, text, m_manifest.manifestFile, a.line);
        }
        out.push_back(std::move(r));
    }
    return out;
}

SizeMap Template::defaultSizes() const {
    SizeMap sizes;
    for (const SizeSpec& s : m_manifest.sizes) sizes[s.name] = s.defaultValue;
    return sizes;
}

std::vector<SizeMap> Template::testSizes() const {
    std::size_t runs = 0;
    for (const SizeSpec& s : m_manifest.sizes) runs = std::max(runs, s.testValues.size());
    if (runs == 0) return {defaultSizes()};
    std::vector<SizeMap> out(runs);
    for (std::size_t k = 0; k < runs; ++k)
        for (const SizeSpec& s : m_manifest.sizes)
            out[k][s.name] = s.testValues.empty() ? s.defaultValue : s.testValues[std::min(k, s.testValues.size() - 1)];
    return out;
}

SizeMap Template::largeTestSizes() const {
    SizeMap sizes;
    bool any = false;
    for (const SizeSpec& s : m_manifest.sizes) {
        sizes[s.name] = s.largeValue > 0 ? s.largeValue : s.defaultValue;
        any = any || s.largeValue > 0;
    }
    return any ? sizes : SizeMap{};
}

SizeMap Template::withSizes(const std::map<std::string, std::string>& overrides) const {
    SizeMap sizes = defaultSizes();
    for (const auto& entry : overrides) {
        // Named copies, not a structured binding: clang 14 (the fuzz build) cannot capture those.
        const std::string& key = entry.first;
        const std::string& value = entry.second;
        auto spec = std::find_if(m_manifest.sizes.begin(), m_manifest.sizes.end(), [&](const SizeSpec& s) { return s.name == key; });
        if (spec == m_manifest.sizes.end()) {
            std::string known;
            for (const SizeSpec& s : m_manifest.sizes) known += (known.empty() ? "" : ", ") + s.name;
            throw InputError("'" + key + "' is not a problem size of " + m_manifest.id + " (sizes: " + known + ")");
        }
        long long v = 0;
        const char* end = value.data() + value.size();
        auto [ptr, ec] = std::from_chars(value.data(), end, v);
        if (ec != std::errc() || ptr != end) throw InputError("size " + key + "=" + value + " is not an integer");
        if (v < spec->minValue) throw InputError("size " + key + "=" + value + " is below its minimum " + std::to_string(spec->minValue));
        sizes[key] = v;
    }
    return sizes;
}

LaunchGeometry Template::launch(const Config& config, const Arch& arch, const SizeMap& sizes) const {
    // The launch marked primary when this config runs it, else the first one it runs: a config
    // may skip launches (repeat 0), as a single-pass scan skips the three-pass one's kernels.
    // A prepare launch is never the one described: it is not timed.
    const std::vector<LaunchStep> steps = launches(config, arch, sizes);
    const auto runs = [](const LaunchStep& s) { return s.repeat > 0 && !s.prepare; };
    auto chosen = std::find_if(steps.begin(), steps.end(), [&](const LaunchStep& s) { return s.primary && runs(s); });
    if (chosen == steps.end()) chosen = std::find_if(steps.begin(), steps.end(), runs);
    if (chosen == steps.end()) chosen = steps.begin();
    return chosen->geometry;
}

std::vector<LaunchStep> Template::launches(const Config& config, const Arch& arch, const SizeMap& sizes) const {
    const VariableMap vars = variables(config, arch, sizes);
    const std::string name = configName(config);
    std::vector<LaunchStep> steps;
    for (const LaunchSpec& l : m_manifest.launches) {
        LaunchStep step;
        step.kernel = l.kernel.empty() ? name : name + "_" + l.kernel;
        step.primary = l.primary;
        step.prepare = l.prepare;
        step.geometry.kernel = step.kernel;
        for (int i = 0; i < 3; ++i) {
            step.geometry.grid[i] = toCount(evaluateExpression(l.grid[i], vars), "grid dimension " + l.grid[i]);
            step.geometry.block[i] = toCount(evaluateExpression(l.block[i], vars), "block dimension " + l.block[i]);
            step.geometry.cluster[i] = toCount(evaluateExpression(l.cluster[i], vars), "cluster dimension " + l.cluster[i]);
        }
        step.geometry.dynamicSmemBytes = toCount(evaluateExpression(l.dynamicSmem, vars), "dynamic shared memory " + l.dynamicSmem);
        step.repeat = toCount(evaluateExpression(l.repeat, vars), "repeat " + l.repeat);
        if (step.repeat < 0)
            throw InputError(m_manifest.manifestFile + ":" + std::to_string(l.line) + ": repeat is " + std::to_string(step.repeat));
        step.persistent = evaluateExpression(l.persistent, vars) != 0;
        step.geometry.persistent = step.persistent;
        steps.push_back(std::move(step));
    }
    return steps;
}

std::vector<ResolvedBaseline> Template::baselines(const Config& config, const Arch& arch, const SizeMap& sizes) const {
    const auto text = placeholderValues(config, arch);
    VariableMap vars = variables(config, arch, sizes);
    vars["FLOPS"] = flops(config, arch, sizes);
    vars["BYTES"] = minBytes(config, arch, sizes);
    std::vector<ResolvedBaseline> out;
    for (const BaselineSpec& b : m_manifest.baselines) {
        ResolvedBaseline r{b.name, b.args, b.output, {}, {}};
        for (const BaselineParamSpec& p : b.params) {
            if (p.isText) {
                r.texts[p.name] = substitute(p.text, text, m_manifest.manifestFile, b.line);
            } else {
                try {
                    r.numbers[p.name] = evaluateExpression(p.expr, vars);
                } catch (const InputError& e) {
                    throw InputError(m_manifest.manifestFile + ":" + std::to_string(b.line) + ": baseline '" + b.name + "': " + e.what());
                }
            }
        }
        out.push_back(std::move(r));
    }
    return out;
}

std::string Template::rooflineUnit(const Config& config, const Arch& arch) const {
    return substitute(m_manifest.rooflineUnit, placeholderValues(config, arch), m_manifest.manifestFile, 0);
}

std::string Template::problemRefusal(const Config& config, const Arch& arch, const SizeMap& sizes) const {
    try {
        variables(config, arch, sizes);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

std::vector<std::pair<std::string, double>> Template::quantities(const Config& config, const Arch& arch, const SizeMap& sizes) const {
    if (m_manifest.quantities.empty()) return {};
    const VariableMap vars = variables(config, arch, sizes);
    std::vector<std::pair<std::string, double>> out;
    for (const QuantitySpec& q : m_manifest.quantities) out.emplace_back(q.name, vars.at(q.name));
    return out;
}

double Template::flops(const Config& config, const Arch& arch, const SizeMap& sizes) const {
    return evaluateExpression(m_manifest.flopsExpr, variables(config, arch, sizes));
}

double Template::minBytes(const Config& config, const Arch& arch, const SizeMap& sizes) const {
    return evaluateExpression(m_manifest.bytesExpr, variables(config, arch, sizes));
}

double Template::trafficBytes(const Config& config, const Arch& arch, const SizeMap& sizes, long long l2Bytes) const {
    VariableMap vars = variables(config, arch, sizes);
    const double compulsory = evaluateExpression(m_manifest.bytesExpr, vars);
    if (m_manifest.trafficExpr.empty()) return compulsory;
    if (l2Bytes > 0) vars["l2_bytes"] = static_cast<double>(l2Bytes);
    try {
        return std::max(compulsory, evaluateExpression(m_manifest.trafficExpr, vars));
    } catch (const InputError& e) {
        throw InputError(m_manifest.manifestFile + ":" + std::to_string(m_manifest.trafficLine) + ": traffic: " + e.what());
    }
}

}  // namespace kx::engine
