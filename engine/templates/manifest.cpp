// Reading a template's manifest.xml into a TemplateManifest: parseManifest and parseManifestText
// (template_library.hpp) and TemplateManifest::findParam (manifest.hpp). Every mistake is an
// InputError "file:line: reason"; the format is documented in templates/README.md.
#include "templates/template_library.hpp"

#include "util/error.hpp"
#include "util/text.hpp"

#include <tinyxml2.h>

#include <algorithm>
#include <charconv>
#include <set>
#include <sstream>

namespace kx::engine {
namespace fs = std::filesystem;
using tinyxml2::XMLElement;

namespace {

// Errors in a manifest always carry "file:line: ".
[[noreturn]] void fail(const fs::path& file, int line, const std::string& message) {
    throw InputError(file.string() + ":" + std::to_string(line) + ": " + message);
}

std::string attr(const XMLElement* e, const char* name, const std::string& fallback = "") {
    const char* v = e->Attribute(name);
    return v ? std::string(v) : fallback;
}

std::string requiredAttr(const fs::path& file, const XMLElement* e, const char* name) {
    const char* v = e->Attribute(name);
    if (!v || !*v) fail(file, e->GetLineNum(), std::string("<") + e->Name() + "> needs attribute '" + name + "'");
    return v;
}

long long parseInteger(const fs::path& file, int line, const std::string& text, const std::string& what) {
    long long value = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr != end) fail(file, line, what + " '" + text + "' is not an integer");
    return value;
}

// "K, ceil_div(M,2)" -> {"K", "ceil_div(M,2)"}: commas inside parentheses belong to a call.
std::vector<std::string> splitExpressionList(const std::string& text) {
    std::vector<std::string> items(1);
    int depth = 0;
    for (char c : text) {
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if (c == ',' && depth == 0) items.emplace_back();
        else items.back() += c;
    }
    for (std::string& item : items) {
        const auto first = item.find_first_not_of(" \t\n");
        item = first == std::string::npos ? "" : item.substr(first, item.find_last_not_of(" \t\n") - first + 1);
    }
    return items;
}

// <arg role="tensor_map" of="A" dims="K,M" box="64,BM" swizzle="128B"/>: a TMA descriptor of an
// earlier buffer argument, as the runner will encode it (runner/PROTOCOL.md). With mode="im2col"
// the box is "channels per pixel, pixels per column" and lower="..." upper="..." give the
// bounding box's corners, one per spatial dimension (dims minus channels and images).
void parseTensorMap(const fs::path& file, const XMLElement* e, const std::vector<ArgSpec>& earlier, ArgSpec& a) {
    // The buffer may depend on the config (of="${im2col_of}": a choice's attribute; or
    // of="fold ? Xf : A", chosen by an expression), checked when the config fills it in.
    a.of = requiredAttr(file, e, "of");
    const auto buffer = std::find_if(earlier.begin(), earlier.end(), [&](const ArgSpec& b) { return b.name == a.of; });
    static const std::set<std::string> bufferRoles = {"in", "out", "inout", "scratch"};
    const bool chosenLater = a.of.find("${") != std::string::npos || a.of.find('?') != std::string::npos;
    if (!chosenLater && (buffer == earlier.end() || !bufferRoles.count(buffer->role)))
        fail(file, a.line, "tensor map '" + a.name + "': of=\"" + a.of + "\" must name an earlier buffer argument (in, out, inout or scratch)");
    const std::string what = "tensor map '" + a.name + "'";
    a.mode = attr(e, "mode", "tile");
    if (a.mode != "tile" && a.mode != "im2col") fail(file, a.line, what + ": mode must be tile or im2col, not '" + a.mode + "'");
    const bool im2col = a.mode == "im2col";
    a.dims = splitExpressionList(requiredAttr(file, e, "dims"));
    a.box = splitExpressionList(requiredAttr(file, e, "box"));
    if (a.dims.size() > 5) fail(file, a.line, what + " has " + std::to_string(a.dims.size()) + " dimensions; TMA takes 1 to 5");
    if (im2col) {
        if (a.dims.size() < 3)
            fail(file, a.line, what + ": an im2col map has 3 to 5 dimensions (channels, 1 to 3 spatial, images), not " + std::to_string(a.dims.size()));
        if (a.box.size() != 2) fail(file, a.line, what + ": an im2col box is two sizes, channels per pixel and pixels per column");
        a.lower = splitExpressionList(requiredAttr(file, e, "lower"));
        a.upper = splitExpressionList(requiredAttr(file, e, "upper"));
        for (const auto* corner : {&a.lower, &a.upper})
            if (corner->size() != a.dims.size() - 2)
                fail(file, a.line, what + ": lower and upper need one corner offset per spatial dimension (" + std::to_string(a.dims.size() - 2) + ")");
    } else {
        if (e->Attribute("lower") || e->Attribute("upper")) fail(file, a.line, what + ": lower and upper belong to mode=\"im2col\"");
        if (a.box.size() != a.dims.size())
            fail(file, a.line, what + " has " + std::to_string(a.dims.size()) + " dims but " + std::to_string(a.box.size()) +
                                   " box sizes; give one box size per dimension");
    }
    if (e->Attribute("strides")) {
        a.strides = splitExpressionList(requiredAttr(file, e, "strides"));
        if (a.strides.size() != a.dims.size()) fail(file, a.line, what + ": give one traversal stride per dimension");
    }
    for (const auto* list : {&a.dims, &a.box, &a.lower, &a.upper, &a.strides})
        for (const std::string& item : *list)
            if (item.empty()) fail(file, a.line, what + " has an empty entry in dims, box, lower, upper or strides");
    // none, 32B, 64B or 128B; or, checked once the config fills it in, a placeholder (a
    // choice's attribute, "${swizzle}") or an expression giving the bytes (0 for none).
    a.swizzle = attr(e, "swizzle", "none");
    const bool literal = a.swizzle.find_first_of("$?*+-/() ") == std::string::npos && !a.swizzle.empty() &&
                         std::isalpha(static_cast<unsigned char>(a.swizzle.back()));
    if (literal && !isTensorMapSwizzle(a.swizzle))
        fail(file, a.line, what + ": swizzle must be none, 32B, 64B or 128B, not '" + a.swizzle + "'");
}

std::string elementText(const XMLElement* e) {
    const char* t = e ? e->GetText() : nullptr;
    return foldWhitespace(t ? t : "");
}

bool isIdentifier(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

ParamSpec parseParam(const fs::path& file, const XMLElement* e) {
    ParamSpec p;
    p.line = e->GetLineNum();
    p.name = requiredAttr(file, e, "name");
    if (!isIdentifier(p.name)) fail(file, p.line, "parameter name '" + p.name + "' is not an identifier");
    p.label = attr(e, "label", p.name);
    p.help = attr(e, "help");
    p.group = attr(e, "group", "Parameters");
    p.applies = attr(e, "applies");
    p.appliesHelp = attr(e, "applies-help");
    if (p.applies.empty() != p.appliesHelp.empty())
        fail(file, p.line, "parameter '" + p.name + "': applies and applies-help go together (an expression, and where it holds in words)");
    const std::string type = requiredAttr(file, e, "type");
    p.defaultValue = requiredAttr(file, e, "default");
    if (type == "int") {
        p.type = ParamType::Int;
        if (const char* values = e->Attribute("values")) {
            std::stringstream list(values);
            std::string item;
            while (std::getline(list, item, ',')) {
                const long long value = parseInteger(file, p.line, item, "allowed value of '" + p.name + "'");
                if (std::find(p.allowed.begin(), p.allowed.end(), value) != p.allowed.end())
                    fail(file, p.line, "parameter '" + p.name + "' lists the value " + item + " twice");
                p.allowed.push_back(value);
            }
            if (p.allowed.empty()) fail(file, p.line, "parameter '" + p.name + "' lists no values");
        } else {
            p.minValue = parseInteger(file, p.line, requiredAttr(file, e, "min"), "min of '" + p.name + "'");
            p.maxValue = parseInteger(file, p.line, requiredAttr(file, e, "max"), "max of '" + p.name + "'");
            if (p.minValue > p.maxValue) fail(file, p.line, "parameter '" + p.name + "' has min > max");
        }
        // Parameters are tile sizes, counts and switches: a negative one is a typo that would
        // otherwise reach the compiler as a negative array size or block dimension.
        const long long lowest = p.allowed.empty() ? p.minValue : *std::min_element(p.allowed.begin(), p.allowed.end());
        if (lowest < 0)
            fail(file, p.line, "parameter '" + p.name + "' allows " + std::to_string(lowest) + "; parameter values must not be negative");
        const long long def = parseInteger(file, p.line, p.defaultValue, "default of '" + p.name + "'");
        const bool ok = p.allowed.empty() ? (def >= p.minValue && def <= p.maxValue)
                                          : std::find(p.allowed.begin(), p.allowed.end(), def) != p.allowed.end();
        if (!ok) fail(file, p.line, "default of '" + p.name + "' is not an allowed value");
    } else if (type == "bool") {
        p.type = ParamType::Bool;
        if (p.defaultValue != "true" && p.defaultValue != "false")
            fail(file, p.line, "default of bool parameter '" + p.name + "' must be true or false");
    } else if (type == "enum") {
        p.type = ParamType::Enum;
        for (const XMLElement* c = e->FirstChildElement("choice"); c; c = c->NextSiblingElement("choice")) {
            EnumChoice choice;
            choice.name = requiredAttr(file, c, "name");
            if (p.choices.end() != std::find_if(p.choices.begin(), p.choices.end(), [&](const EnumChoice& o) { return o.name == choice.name; }))
                fail(file, c->GetLineNum(), "parameter '" + p.name + "' has the choice '" + choice.name + "' twice");
            choice.help = attr(c, "help");
            for (const tinyxml2::XMLAttribute* a = c->FirstAttribute(); a; a = a->Next()) {
                const std::string key = a->Name();
                if (key != "name" && key != "help") choice.attributes[key] = a->Value();
            }
            p.choices.push_back(std::move(choice));
        }
        if (p.choices.empty()) fail(file, p.line, "enum parameter '" + p.name + "' has no <choice>");
        if (std::none_of(p.choices.begin(), p.choices.end(), [&](const EnumChoice& c) { return c.name == p.defaultValue; }))
            fail(file, p.line, "default '" + p.defaultValue + "' of '" + p.name + "' is not one of its choices");
    } else {
        fail(file, p.line, "parameter '" + p.name + "' has unknown type '" + type + "' (int, bool or enum)");
    }
    return p;
}

bool isNameCharacter(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A config's name is its kernel's C identifier and its file name under `kx generate
// --output-dir`: only letters, digits, '_' and parameters whose values are made of the same.
void checkNamePattern(const fs::path& file, const TemplateManifest& m) {
    const std::string& pattern = m.namePattern;
    const int line = m.namePatternLine;
    if (pattern.empty()) fail(file, line, "<name-pattern> is empty; it names every config (and its kernel and file)");
    if (!(std::isalpha(static_cast<unsigned char>(pattern[0])) || pattern[0] == '_'))
        fail(file, line, "<name-pattern> must start with a letter or '_' (the name is a C identifier)");
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == '{') {
            const std::size_t close = pattern.find('}', i);
            if (close == std::string::npos) fail(file, line, "<name-pattern> has an unclosed '{'");
            std::string key = pattern.substr(i + 1, close - i - 1);
            // {PARAM?} or {PARAM?prefix}: the prefix ("_" by default) and the value, or nothing
            // at the parameter's default.
            if (const std::size_t mark = key.find('?'); mark != std::string::npos) {
                const std::string prefix = key.substr(mark + 1);
                if (!std::all_of(prefix.begin(), prefix.end(), isNameCharacter))
                    fail(file, line, "<name-pattern>'s {" + key + "} has a prefix with characters other than letters, digits and '_'");
                key.resize(mark);
            }
            const ParamSpec* p = m.findParam(key);
            if (!p) fail(file, line, "<name-pattern> names {" + key + "}, which is not a parameter");
            for (const EnumChoice& c : p->choices)
                if (!std::all_of(c.name.begin(), c.name.end(), isNameCharacter))
                    fail(file, line, "<name-pattern> uses {" + key + "}, whose choice '" + c.name +
                                         "' has characters other than letters, digits and '_'");
            i = close;
        } else if (!isNameCharacter(pattern[i])) {
            fail(file, line, std::string("<name-pattern> holds '") + pattern[i] +
                                 "'; a config's name (its kernel and file name) may hold only letters, digits, '_' and {PARAM}s");
        }
    }
}

// [SECTION] Manifest sections, in the order parseManifestDocument reads them (so that of two
// mistakes the same one is reported first).

// <template id title category reference languages> and <summary>.
void parseTemplateElement(const fs::path& file, const XMLElement* root, TemplateManifest& m) {
    m.manifestFile = fs::absolute(file).string();
    m.folder = fs::absolute(file).parent_path().string();
    m.id = requiredAttr(file, root, "id");
    m.title = attr(root, "title", m.id);
    m.category = attr(root, "category", "Other");
    m.referenceName = attr(root, "reference");
    std::stringstream list(attr(root, "languages", "cuda"));
    for (std::string item; std::getline(list, item, ',');) m.languages.push_back(item);
    m.summary = elementText(root->FirstChildElement("summary"));
}

// One <source> per language: lang="hip" beside the CUDA one (lang defaults to cuda); every
// language listed needs one, and every source's language counts as listed.
void parseSources(const fs::path& file, const XMLElement* root, TemplateManifest& m) {
    const XMLElement* source = root->FirstChildElement("source");
    if (!source) fail(file, root->GetLineNum(), "<template> needs a <source file=...> element");
    m.sourceFile = requiredAttr(file, source, "file");
    m.sourceLine = source->GetLineNum();
    for (const XMLElement* e = source; e; e = e->NextSiblingElement("source")) {
        const std::string lang = attr(e, "lang", "cuda");
        if (lang != "cuda" && lang != "hip") fail(file, e->GetLineNum(), "<source lang=\"" + lang + "\"> must be cuda or hip");
        if (!m.sourceFiles.emplace(lang, requiredAttr(file, e, "file")).second) fail(file, e->GetLineNum(), "a second " + lang + " <source>");
        m.sourceFileLines[lang] = e->GetLineNum();
    }
    for (const auto& [lang, name] : m.sourceFiles)
        if (std::find(m.languages.begin(), m.languages.end(), lang) == m.languages.end()) m.languages.push_back(lang);
    for (const std::string& lang : m.languages)
        if (!m.sourceFiles.count(lang))
            fail(file, root->GetLineNum(), "languages lists " + lang + " but no <source lang=\"" + lang + "\"> names its file");
}

// Parameters, derived values, sizes and quantities share one namespace in expressions.
class NameClaims {
public:
    explicit NameClaims(const fs::path& file) : m_file(file) {}
    void claim(const std::string& name, int line) {
        if (!m_names.insert(name).second) fail(m_file, line, "the name '" + name + "' is defined twice");
    }

private:
    const fs::path& m_file;
    std::set<std::string> m_names;
};

// <parameters>, <derived> and <constraints>.
void parseParameters(const fs::path& file, const XMLElement* root, TemplateManifest& m, NameClaims& names) {
    if (const XMLElement* params = root->FirstChildElement("parameters")) {
        for (const XMLElement* e = params->FirstChildElement(); e; e = e->NextSiblingElement()) {
            if (std::string(e->Name()) != "param") fail(file, e->GetLineNum(), std::string("unexpected <") + e->Name() + "> in <parameters>");
            m.params.push_back(parseParam(file, e));
            names.claim(m.params.back().name, m.params.back().line);
        }
    }
    for (const XMLElement* e = root->FirstChildElement("derived"); e; e = e->NextSiblingElement("derived")) {
        DerivedSpec d{requiredAttr(file, e, "name"), requiredAttr(file, e, "expr"), attr(e, "help"), e->GetLineNum()};
        if (!isIdentifier(d.name)) fail(file, d.line, "derived name '" + d.name + "' is not an identifier");
        names.claim(d.name, d.line);
        m.derived.push_back(std::move(d));
    }
    if (const XMLElement* cons = root->FirstChildElement("constraints")) {
        for (const XMLElement* e = cons->FirstChildElement("constraint"); e; e = e->NextSiblingElement("constraint"))
            m.constraints.push_back({requiredAttr(file, e, "expr"), requiredAttr(file, e, "message"), e->GetLineNum()});
    }
}

SizeSpec parseSize(const fs::path& file, const XMLElement* e) {
    SizeSpec s;
    s.line = e->GetLineNum();
    s.name = requiredAttr(file, e, "name");
    s.help = attr(e, "help");
    s.defaultValue = parseInteger(file, s.line, requiredAttr(file, e, "default"), "default of size '" + s.name + "'");
    s.minValue = parseInteger(file, s.line, attr(e, "min", "1"), "min of size '" + s.name + "'");
    std::stringstream tests(attr(e, "tests"));
    for (std::string item; std::getline(tests, item, ',');) {
        s.testValues.push_back(parseInteger(file, s.line, item, "test value of size '" + s.name + "'"));
        if (s.testValues.back() < s.minValue) fail(file, s.line, "test value " + item + " of size '" + s.name + "' is below its minimum");
    }
    if (const std::string large = attr(e, "large"); !large.empty()) {
        s.largeValue = parseInteger(file, s.line, large, "large test value of size '" + s.name + "'");
        if (s.largeValue < s.minValue) fail(file, s.line, "large test value " + large + " of size '" + s.name + "' is below its minimum");
    }
    return s;
}

// <problem>: its <size>s, its <quantity>s, then its <requirement>s.
void parseProblem(const fs::path& file, const XMLElement* root, TemplateManifest& m, NameClaims& names) {
    const XMLElement* problem = root->FirstChildElement("problem");
    if (!problem) return;
    for (const XMLElement* e = problem->FirstChildElement("size"); e; e = e->NextSiblingElement("size")) {
        m.sizes.push_back(parseSize(file, e));
        names.claim(m.sizes.back().name, m.sizes.back().line);
    }
    for (const XMLElement* e = problem->FirstChildElement("quantity"); e; e = e->NextSiblingElement("quantity")) {
        QuantitySpec q{requiredAttr(file, e, "name"), requiredAttr(file, e, "expr"), attr(e, "help"), e->GetLineNum()};
        names.claim(q.name, q.line);
        m.quantities.push_back(std::move(q));
    }
    for (const XMLElement* e = problem->FirstChildElement("requirement"); e; e = e->NextSiblingElement("requirement"))
        m.requirements.push_back({requiredAttr(file, e, "expr"), requiredAttr(file, e, "message"), e->GetLineNum()});
}

// One <arg>; a tensor map refers to an earlier buffer argument.
ArgSpec parseArg(const fs::path& file, const XMLElement* e, const std::vector<ArgSpec>& earlier) {
    ArgSpec a;
    a.name = requiredAttr(file, e, "name");
    a.role = requiredAttr(file, e, "role");
    a.line = e->GetLineNum();
    static const std::set<std::string> roles = {"in", "out", "inout", "scratch", "size", "scalar", "pass", "tensor_map"};
    if (!roles.count(a.role))
        fail(file, a.line, "arg '" + a.name + "' has unknown role '" + a.role + "' (in, out, inout, scratch, size, scalar, pass or tensor_map)");
    a.type = a.role == "pass" ? attr(e, "type", "int") : a.role == "tensor_map" ? attr(e, "type") : requiredAttr(file, e, "type");
    a.count = attr(e, "count", "1");
    a.fill = attr(e, "fill");
    if (a.role == "tensor_map") parseTensorMap(file, e, earlier, a);
    if (a.role == "scalar") a.value = requiredAttr(file, e, "value");
    if (!a.fill.empty() && a.role != "in" && a.role != "inout") fail(file, a.line, "arg '" + a.name + "': only in and inout arguments are filled");
    const std::string zero = attr(e, "zero", "once");
    if (zero != "once" && zero != "each") fail(file, a.line, "arg '" + a.name + "': zero must be once or each");
    if (zero == "each" && a.role != "scratch") fail(file, a.line, "arg '" + a.name + "': zero=\"each\" is for scratch buffers");
    a.zeroEachRun = zero == "each";
    return a;
}

LaunchSpec parseLaunch(const fs::path& file, const XMLElement* launch) {
    LaunchSpec l;
    l.line = launch->GetLineNum();
    const char* axes[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i) {
        l.grid[i] = attr(launch, ("grid-" + std::string(axes[i])).c_str(), "1");
        l.block[i] = attr(launch, ("block-" + std::string(axes[i])).c_str(), "1");
        l.cluster[i] = attr(launch, ("cluster-" + std::string(axes[i])).c_str(), "1");
    }
    l.dynamicSmem = attr(launch, "dynamic-smem", "0");
    l.kernel = attr(launch, "kernel");
    l.repeat = attr(launch, "repeat", "1");
    l.primary = attr(launch, "primary") == "true";
    l.prepare = attr(launch, "prepare") == "true";
    if (l.primary && l.prepare) fail(file, l.line, "a launch cannot be both primary and prepare: the primary kernel is the timed one");
    l.persistent = attr(launch, "persistent", "0");
    if (!l.kernel.empty() && !isIdentifier(l.kernel)) fail(file, l.line, "launch kernel '" + l.kernel + "' is not an identifier");
    return l;
}

// <launches> with one <launch> or more, or a single <launch>.
void parseLaunches(const fs::path& file, const XMLElement* root, TemplateManifest& m) {
    if (const XMLElement* launches = root->FirstChildElement("launches")) {
        for (const XMLElement* e = launches->FirstChildElement("launch"); e; e = e->NextSiblingElement("launch"))
            m.launches.push_back(parseLaunch(file, e));
        if (m.launches.empty()) fail(file, launches->GetLineNum(), "<launches> needs at least one <launch>");
    } else if (const XMLElement* launch = root->FirstChildElement("launch")) {
        m.launches.push_back(parseLaunch(file, launch));
    } else {
        fail(file, root->GetLineNum(), "<template> needs a <launch> element (or <launches>)");
    }
}

// One <baseline>: the args it lends (names of `argNames`), its output and its <param>s.
BaselineSpec parseBaseline(const fs::path& file, const XMLElement* e, const std::set<std::string>& argNames) {
    BaselineSpec b;
    b.line = e->GetLineNum();
    b.name = requiredAttr(file, e, "name");
    // "A,B" or "A B": the lent args in the baseline's order.
    std::string argList = attr(e, "args");
    std::replace(argList.begin(), argList.end(), ',', ' ');
    std::stringstream list(argList);
    for (std::string item; list >> item;) {
        if (!argNames.count(item)) fail(file, b.line, "baseline '" + b.name + "' lends '" + item + "', which is not an arg");
        b.args.push_back(item);
    }
    b.output = attr(e, "output");
    if (!b.output.empty() && !argNames.count(b.output)) fail(file, b.line, "baseline '" + b.name + "' output '" + b.output + "' is not an arg");
    for (const XMLElement* p = e->FirstChildElement("param"); p; p = p->NextSiblingElement("param")) {
        BaselineParamSpec param;
        param.name = requiredAttr(file, p, "name");
        if (p->Attribute("value")) {
            param.text = p->Attribute("value");
            param.isText = true;
        } else {
            param.expr = requiredAttr(file, p, "expr");
        }
        b.params.push_back(std::move(param));
    }
    return b;
}

// <flops>, <bytes>, <traffic> and <visual>.
void parseModels(const fs::path& file, const XMLElement* root, TemplateManifest& m) {
    if (const XMLElement* e = root->FirstChildElement("flops")) m.flopsExpr = requiredAttr(file, e, "expr");
    if (const XMLElement* e = root->FirstChildElement("bytes")) m.bytesExpr = requiredAttr(file, e, "expr");
    if (const XMLElement* e = root->FirstChildElement("traffic")) {
        m.trafficExpr = requiredAttr(file, e, "bytes");
        m.trafficLine = e->GetLineNum();
    }
    if (const XMLElement* e = root->FirstChildElement("visual")) m.visual = parseVisualSpec(file.string(), e);
}

TemplateManifest parseManifestDocument(const tinyxml2::XMLDocument& doc, const fs::path& manifestFile) {
    const XMLElement* root = doc.RootElement();
    if (!root || std::string(root->Name()) != "template")
        fail(manifestFile, root ? root->GetLineNum() : 1, "the root element must be <template>");
    TemplateManifest m;
    parseTemplateElement(manifestFile, root, m);
    parseSources(manifestFile, root, m);
    const XMLElement* pattern = root->FirstChildElement("name-pattern");
    if (!pattern) fail(manifestFile, root->GetLineNum(), "<template> needs a <name-pattern>");
    m.namePattern = elementText(pattern);
    m.namePatternLine = pattern->GetLineNum();

    NameClaims names(manifestFile);
    parseParameters(manifestFile, root, m, names);
    parseProblem(manifestFile, root, m, names);
    if (const XMLElement* args = root->FirstChildElement("args"))
        for (const XMLElement* e = args->FirstChildElement("arg"); e; e = e->NextSiblingElement("arg"))
            m.args.push_back(parseArg(manifestFile, e, m.args));
    parseLaunches(manifestFile, root, m);
    if (const XMLElement* roofline = root->FirstChildElement("roofline")) m.rooflineUnit = requiredAttr(manifestFile, roofline, "unit");
    if (const XMLElement* baselines = root->FirstChildElement("baselines")) {
        std::set<std::string> argNames;
        for (const ArgSpec& a : m.args) argNames.insert(a.name);
        for (const XMLElement* e = baselines->FirstChildElement("baseline"); e; e = e->NextSiblingElement("baseline"))
            m.baselines.push_back(parseBaseline(manifestFile, e, argNames));
    }
    parseModels(manifestFile, root, m);
    checkNamePattern(manifestFile, m);
    return m;
}

}  // namespace

const ParamSpec* TemplateManifest::findParam(const std::string& name) const {
    for (const ParamSpec& p : params)
        if (p.name == name) return &p;
    return nullptr;
}

TemplateManifest parseManifest(const fs::path& manifestFile) {
    tinyxml2::XMLDocument doc;
    if (doc.LoadFile(manifestFile.c_str()) != tinyxml2::XML_SUCCESS) {
        std::string reason = doc.ErrorStr() ? doc.ErrorStr() : "cannot read file";
        fail(manifestFile, doc.ErrorLineNum(), "malformed XML: " + reason);
    }
    return parseManifestDocument(doc, manifestFile);
}

TemplateManifest parseManifestText(const std::string& xml, const fs::path& manifestFile) {
    tinyxml2::XMLDocument doc;
    if (doc.Parse(xml.data(), xml.size()) != tinyxml2::XML_SUCCESS) {
        std::string reason = doc.ErrorStr() ? doc.ErrorStr() : "cannot parse";
        fail(manifestFile, doc.ErrorLineNum(), "malformed XML: " + reason);
    }
    return parseManifestDocument(doc, manifestFile);
}

bool isTensorMapSwizzle(const std::string& swizzle) { return swizzle == "none" || swizzle == "32B" || swizzle == "64B" || swizzle == "128B"; }

}  // namespace kx::engine
