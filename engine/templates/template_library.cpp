#include "templates/template_library.hpp"

#include "templates/manifest_checks.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

#include <tinyxml2.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
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
// earlier buffer argument, as the runner will encode it (runner/PROTOCOL.md).
void parseTensorMap(const fs::path& file, const XMLElement* e, const std::vector<ArgSpec>& earlier, ArgSpec& a) {
    a.of = requiredAttr(file, e, "of");
    const auto buffer = std::find_if(earlier.begin(), earlier.end(), [&](const ArgSpec& b) { return b.name == a.of; });
    static const std::set<std::string> bufferRoles = {"in", "out", "inout", "scratch"};
    if (buffer == earlier.end() || !bufferRoles.count(buffer->role))
        fail(file, a.line, "tensor map '" + a.name + "': of=\"" + a.of + "\" must name an earlier buffer argument (in, out, inout or scratch)");
    a.dims = splitExpressionList(requiredAttr(file, e, "dims"));
    a.box = splitExpressionList(requiredAttr(file, e, "box"));
    if (a.dims.size() > 5) fail(file, a.line, "tensor map '" + a.name + "' has " + std::to_string(a.dims.size()) + " dimensions; TMA takes 1 to 5");
    if (a.box.size() != a.dims.size())
        fail(file, a.line, "tensor map '" + a.name + "' has " + std::to_string(a.dims.size()) + " dims but " + std::to_string(a.box.size()) +
                               " box sizes; give one box size per dimension");
    for (const auto* list : {&a.dims, &a.box})
        for (const std::string& item : *list)
            if (item.empty()) fail(file, a.line, "tensor map '" + a.name + "' has an empty entry in dims or box");
    a.swizzle = attr(e, "swizzle", "none");
    static const std::set<std::string> swizzles = {"none", "32B", "64B", "128B"};
    if (!swizzles.count(a.swizzle)) fail(file, a.line, "tensor map '" + a.name + "': swizzle must be none, 32B, 64B or 128B, not '" + a.swizzle + "'");
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
            const std::string key = pattern.substr(i + 1, close - i - 1);
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

}  // namespace

const ParamSpec* TemplateManifest::findParam(const std::string& name) const {
    for (const ParamSpec& p : params)
        if (p.name == name) return &p;
    return nullptr;
}

namespace {

TemplateManifest parseManifestDocument(const tinyxml2::XMLDocument& doc, const fs::path& manifestFile);

}  // namespace

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

namespace {

TemplateManifest parseManifestDocument(const tinyxml2::XMLDocument& doc, const fs::path& manifestFile) {
    const XMLElement* root = doc.RootElement();
    if (!root || std::string(root->Name()) != "template")
        fail(manifestFile, root ? root->GetLineNum() : 1, "the root element must be <template>");

    TemplateManifest m;
    m.manifestFile = fs::absolute(manifestFile).string();
    m.folder = fs::absolute(manifestFile).parent_path().string();
    m.id = requiredAttr(manifestFile, root, "id");
    m.title = attr(root, "title", m.id);
    m.category = attr(root, "category", "Other");
    m.referenceName = attr(root, "reference");
    {
        std::stringstream list(attr(root, "languages", "cuda"));
        std::string item;
        while (std::getline(list, item, ',')) m.languages.push_back(item);
    }
    m.summary = elementText(root->FirstChildElement("summary"));

    const XMLElement* source = root->FirstChildElement("source");
    if (!source) fail(manifestFile, root->GetLineNum(), "<template> needs a <source file=...> element");
    m.sourceFile = requiredAttr(manifestFile, source, "file");
    m.sourceLine = source->GetLineNum();
    // One <source> per language: lang="hip" beside the CUDA one (lang defaults to cuda).
    for (const XMLElement* e = source; e; e = e->NextSiblingElement("source")) {
        const std::string lang = attr(e, "lang", "cuda");
        if (lang != "cuda" && lang != "hip") fail(manifestFile, e->GetLineNum(), "<source lang=\"" + lang + "\"> must be cuda or hip");
        if (!m.sourceFiles.emplace(lang, requiredAttr(manifestFile, e, "file")).second)
            fail(manifestFile, e->GetLineNum(), "a second " + lang + " <source>");
        m.sourceFileLines[lang] = e->GetLineNum();
    }
    for (const auto& [lang, file] : m.sourceFiles)
        if (std::find(m.languages.begin(), m.languages.end(), lang) == m.languages.end()) m.languages.push_back(lang);
    for (const std::string& lang : m.languages)
        if (!m.sourceFiles.count(lang))
            fail(manifestFile, root->GetLineNum(), "languages lists " + lang + " but no <source lang=\"" + lang + "\"> names its file");

    const XMLElement* pattern = root->FirstChildElement("name-pattern");
    if (!pattern) fail(manifestFile, root->GetLineNum(), "<template> needs a <name-pattern>");
    m.namePattern = elementText(pattern);
    m.namePatternLine = pattern->GetLineNum();

    std::set<std::string> names;
    auto claimName = [&](const std::string& name, int line) {
        if (!names.insert(name).second) fail(manifestFile, line, "the name '" + name + "' is defined twice");
    };

    if (const XMLElement* params = root->FirstChildElement("parameters")) {
        for (const XMLElement* e = params->FirstChildElement(); e; e = e->NextSiblingElement()) {
            if (std::string(e->Name()) != "param")
                fail(manifestFile, e->GetLineNum(), std::string("unexpected <") + e->Name() + "> in <parameters>");
            m.params.push_back(parseParam(manifestFile, e));
            claimName(m.params.back().name, m.params.back().line);
        }
    }
    for (const XMLElement* e = root->FirstChildElement("derived"); e; e = e->NextSiblingElement("derived")) {
        DerivedSpec d{requiredAttr(manifestFile, e, "name"), requiredAttr(manifestFile, e, "expr"), attr(e, "help"), e->GetLineNum()};
        if (!isIdentifier(d.name)) fail(manifestFile, d.line, "derived name '" + d.name + "' is not an identifier");
        claimName(d.name, d.line);
        m.derived.push_back(std::move(d));
    }
    if (const XMLElement* cons = root->FirstChildElement("constraints")) {
        for (const XMLElement* e = cons->FirstChildElement("constraint"); e; e = e->NextSiblingElement("constraint"))
            m.constraints.push_back({requiredAttr(manifestFile, e, "expr"), requiredAttr(manifestFile, e, "message"), e->GetLineNum()});
    }
    if (const XMLElement* problem = root->FirstChildElement("problem")) {
        for (const XMLElement* e = problem->FirstChildElement("size"); e; e = e->NextSiblingElement("size")) {
            SizeSpec s;
            s.line = e->GetLineNum();
            s.name = requiredAttr(manifestFile, e, "name");
            s.help = attr(e, "help");
            s.defaultValue = parseInteger(manifestFile, s.line, requiredAttr(manifestFile, e, "default"), "default of size '" + s.name + "'");
            s.minValue = parseInteger(manifestFile, s.line, attr(e, "min", "1"), "min of size '" + s.name + "'");
            std::stringstream tests(attr(e, "tests"));
            for (std::string item; std::getline(tests, item, ',');) {
                s.testValues.push_back(parseInteger(manifestFile, s.line, item, "test value of size '" + s.name + "'"));
                if (s.testValues.back() < s.minValue) fail(manifestFile, s.line, "test value " + item + " of size '" + s.name + "' is below its minimum");
            }
            claimName(s.name, s.line);
            m.sizes.push_back(std::move(s));
        }
        for (const XMLElement* e = problem->FirstChildElement("quantity"); e; e = e->NextSiblingElement("quantity")) {
            QuantitySpec q{requiredAttr(manifestFile, e, "name"), requiredAttr(manifestFile, e, "expr"), attr(e, "help"), e->GetLineNum()};
            claimName(q.name, q.line);
            m.quantities.push_back(std::move(q));
        }
    }
    if (const XMLElement* args = root->FirstChildElement("args")) {
        for (const XMLElement* e = args->FirstChildElement("arg"); e; e = e->NextSiblingElement("arg")) {
            ArgSpec a;
            a.name = requiredAttr(manifestFile, e, "name");
            a.role = requiredAttr(manifestFile, e, "role");
            a.line = e->GetLineNum();
            static const std::set<std::string> roles = {"in", "out", "inout", "scratch", "size", "scalar", "pass", "tensor_map"};
            if (!roles.count(a.role))
                fail(manifestFile, a.line,
                     "arg '" + a.name + "' has unknown role '" + a.role + "' (in, out, inout, scratch, size, scalar, pass or tensor_map)");
            a.type = a.role == "pass" ? attr(e, "type", "int") : a.role == "tensor_map" ? attr(e, "type") : requiredAttr(manifestFile, e, "type");
            a.count = attr(e, "count", "1");
            a.fill = attr(e, "fill");
            if (a.role == "tensor_map") parseTensorMap(manifestFile, e, m.args, a);
            if (a.role == "scalar") a.value = requiredAttr(manifestFile, e, "value");
            if (!a.fill.empty() && a.role != "in" && a.role != "inout")
                fail(manifestFile, a.line, "arg '" + a.name + "': only in and inout arguments are filled");
            const std::string zero = attr(e, "zero", "once");
            if (zero != "once" && zero != "each") fail(manifestFile, a.line, "arg '" + a.name + "': zero must be once or each");
            if (zero == "each" && a.role != "scratch") fail(manifestFile, a.line, "arg '" + a.name + "': zero=\"each\" is for scratch buffers");
            a.zeroEachRun = zero == "each";
            m.args.push_back(std::move(a));
        }
    }
    auto parseLaunch = [&](const XMLElement* launch) {
        LaunchSpec l;
        l.line = launch->GetLineNum();
        const char* axes[3] = {"x", "y", "z"};
        for (int i = 0; i < 3; ++i) {
            l.grid[i] = attr(launch, ("grid-" + std::string(axes[i])).c_str(), "1");
            l.block[i] = attr(launch, ("block-" + std::string(axes[i])).c_str(), "1");
        }
        l.dynamicSmem = attr(launch, "dynamic-smem", "0");
        l.kernel = attr(launch, "kernel");
        l.repeat = attr(launch, "repeat", "1");
        l.primary = attr(launch, "primary") == "true";
        if (!l.kernel.empty() && !isIdentifier(l.kernel))
            fail(manifestFile, l.line, "launch kernel '" + l.kernel + "' is not an identifier");
        return l;
    };
    if (const XMLElement* launches = root->FirstChildElement("launches")) {
        for (const XMLElement* e = launches->FirstChildElement("launch"); e; e = e->NextSiblingElement("launch"))
            m.launches.push_back(parseLaunch(e));
        if (m.launches.empty()) fail(manifestFile, launches->GetLineNum(), "<launches> needs at least one <launch>");
    } else if (const XMLElement* launch = root->FirstChildElement("launch")) {
        m.launches.push_back(parseLaunch(launch));
    } else {
        fail(manifestFile, root->GetLineNum(), "<template> needs a <launch> element (or <launches>)");
    }
    if (const XMLElement* roofline = root->FirstChildElement("roofline")) m.rooflineUnit = requiredAttr(manifestFile, roofline, "unit");
    if (const XMLElement* baselines = root->FirstChildElement("baselines")) {
        std::set<std::string> argNames;
        for (const ArgSpec& a : m.args) argNames.insert(a.name);
        for (const XMLElement* e = baselines->FirstChildElement("baseline"); e; e = e->NextSiblingElement("baseline")) {
            BaselineSpec b;
            b.line = e->GetLineNum();
            b.name = requiredAttr(manifestFile, e, "name");
            // "A,B" or "A B": the lent args in the baseline's order.
            std::string argList = attr(e, "args");
            std::replace(argList.begin(), argList.end(), ',', ' ');
            std::stringstream list(argList);
            for (std::string item; list >> item;) {
                if (!argNames.count(item)) fail(manifestFile, b.line, "baseline '" + b.name + "' lends '" + item + "', which is not an arg");
                b.args.push_back(item);
            }
            b.output = attr(e, "output");
            if (!b.output.empty() && !argNames.count(b.output))
                fail(manifestFile, b.line, "baseline '" + b.name + "' output '" + b.output + "' is not an arg");
            for (const XMLElement* p = e->FirstChildElement("param"); p; p = p->NextSiblingElement("param")) {
                BaselineParamSpec param;
                param.name = requiredAttr(manifestFile, p, "name");
                if (p->Attribute("value")) {
                    param.text = p->Attribute("value");
                    param.isText = true;
                } else {
                    param.expr = requiredAttr(manifestFile, p, "expr");
                }
                b.params.push_back(std::move(param));
            }
            m.baselines.push_back(std::move(b));
        }
    }
    if (const XMLElement* e = root->FirstChildElement("flops")) m.flopsExpr = requiredAttr(manifestFile, e, "expr");
    if (const XMLElement* e = root->FirstChildElement("bytes")) m.bytesExpr = requiredAttr(manifestFile, e, "expr");
    if (const XMLElement* e = root->FirstChildElement("traffic")) {
        m.trafficExpr = requiredAttr(manifestFile, e, "bytes");
        m.trafficLine = e->GetLineNum();
    }
    if (const XMLElement* e = root->FirstChildElement("visual")) m.visual = parseVisualSpec(manifestFile.string(), e);
    checkNamePattern(manifestFile, m);
    return m;
}

}  // namespace

std::string readTemplateFile(const TemplateManifest& m, const std::string& relative, int line) {
    const fs::path manifestFile = m.manifestFile;
    const std::string what = "kernel source '" + relative + "'";
    if (relative.empty()) fail(manifestFile, line, "the kernel source's file name is empty");
    if (fs::path(relative).is_absolute()) fail(manifestFile, line, what + " must be a path inside the template's folder, not an absolute one");
    // Resolved with links followed, so that neither '..' nor a link can lead out of the folder.
    std::error_code ec;
    const fs::path folder = fs::weakly_canonical(m.folder, ec);
    const fs::path target = ec ? fs::path() : fs::weakly_canonical(fs::path(m.folder) / relative, ec);
    if (ec) fail(manifestFile, line, what + " cannot be read: " + ec.message());
    if (std::mismatch(folder.begin(), folder.end(), target.begin(), target.end()).first != folder.end())
        fail(manifestFile, line, what + " lies outside the template's folder " + folder.string());
    if (!fs::exists(target, ec)) fail(manifestFile, line, what + " does not exist");
    if (!fs::is_regular_file(target, ec)) fail(manifestFile, line, what + " is not a regular file");
    const auto size = fs::file_size(target, ec);
    if (ec) fail(manifestFile, line, what + " cannot be read: " + ec.message());
    if (size > kMaxTemplateFileBytes)
        fail(manifestFile, line, what + " is " + std::to_string(size) + " bytes; a kernel source may be at most " +
                                     std::to_string(kMaxTemplateFileBytes) + " bytes");
    std::ifstream in(target, std::ios::binary);
    std::string text(size, '\0');
    if (!in || !in.read(text.data(), static_cast<std::streamsize>(size)))
        fail(manifestFile, line, what + " cannot be read");
    return text;
}

namespace {

// An exception's "file:line: message" split back into a LoadError of `file`.
LoadError loadErrorOf(const fs::path& file, const std::string& what) {
    LoadError err{file.string(), 0, what};
    const std::string prefix = file.string() + ":";
    if (what.rfind(prefix, 0) == 0) {
        const std::size_t colon = what.find(':', prefix.size());
        if (colon != std::string::npos) {
            err.line = std::atoi(what.substr(prefix.size(), colon - prefix.size()).c_str());
            err.message = what.substr(colon + 2);
        }
    }
    return err;
}

}  // namespace

std::shared_ptr<const Template> loadTemplateFolder(const fs::path& folder) {
    TemplateManifest m = parseManifest(folder / "manifest.xml");
    std::map<std::string, std::string> sources;
    for (const auto& [lang, relative] : m.sourceFiles) sources[lang] = readTemplateFile(m, relative, m.sourceFileLines[lang]);
    auto tmpl = std::make_shared<const Template>(std::move(m), std::move(sources));
    checkManifestValues(*tmpl);
    return tmpl;
}

std::shared_ptr<const Template> templateFromText(const std::string& manifestXml, const std::map<std::string, std::string>& files,
                                                 const fs::path& folder) {
    const fs::path manifestFile = folder / "manifest.xml";
    TemplateManifest m = parseManifestText(manifestXml, manifestFile);
    std::map<std::string, std::string> sources;
    for (const auto& [lang, relative] : m.sourceFiles) {
        const auto it = files.find(relative);
        if (it == files.end()) fail(manifestFile, m.sourceFileLines[lang], "kernel source '" + relative + "' is missing");
        if (it->second.size() > kMaxTemplateFileBytes)
            fail(manifestFile, m.sourceFileLines[lang], "kernel source '" + relative + "' is over " + std::to_string(kMaxTemplateFileBytes) + " bytes");
        sources[lang] = it->second;
    }
    auto tmpl = std::make_shared<const Template>(std::move(m), std::move(sources));
    checkManifestValues(*tmpl);
    return tmpl;
}

TemplateLibrary::TemplateLibrary() : m_mutex(std::make_unique<std::mutex>()) {}
TemplateLibrary::TemplateLibrary(TemplateLibrary&&) noexcept = default;
TemplateLibrary& TemplateLibrary::operator=(TemplateLibrary&&) noexcept = default;
TemplateLibrary::~TemplateLibrary() = default;

TemplateLibrary TemplateLibrary::load(const fs::path& dir) {
    TemplateLibrary lib;
    lib.addFolder(dir, TemplateOrigin::Shipped);
    return lib;
}

TemplateLibrary TemplateLibrary::load(const fs::path& shipped, const std::vector<fs::path>& userDirs) {
    TemplateLibrary lib = load(shipped);
    for (const fs::path& dir : userDirs) lib.addFolder(dir, TemplateOrigin::User);
    return lib;
}

void TemplateLibrary::addFolder(const fs::path& dir, TemplateOrigin origin) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        m_errors.push_back({dir.string(), 0, "template folder not found"});
        return;
    }
    std::vector<fs::path> manifests;
    if (fs::exists(dir / "manifest.xml", ec)) {
        manifests.push_back(dir / "manifest.xml");  // one template's folder
    } else {
        for (const auto& entry : fs::directory_iterator(dir, ec))
            if (entry.is_directory() && fs::exists(entry.path() / "manifest.xml")) manifests.push_back(entry.path() / "manifest.xml");
    }
    std::sort(manifests.begin(), manifests.end());
    for (const fs::path& file : manifests) loadOne(file, origin);
}

void TemplateLibrary::loadOne(const fs::path& file, TemplateOrigin origin) {
    try {
        auto tmpl = loadTemplateFolder(file.parent_path());
        if (find(tmpl->id())) fail(file, 0, "template id '" + tmpl->id() + "' is used twice");
        std::lock_guard lock(*m_mutex);
        if (origin == TemplateOrigin::User) m_userIds.push_back(tmpl->id());
        m_templates.push_back(std::move(tmpl));
    } catch (const std::exception& e) {
        // Anything else that goes wrong with one template (a filesystem or library error)
        // is that template's problem too: the others still load.
        m_errors.push_back(loadErrorOf(file, e.what()));
    }
}

void TemplateLibrary::putUser(std::shared_ptr<const Template> tmpl) {
    const std::string id = tmpl->id();
    std::lock_guard lock(*m_mutex);
    const auto it = std::find_if(m_templates.begin(), m_templates.end(), [&](const auto& t) { return t->id() == id; });
    const bool user = std::find(m_userIds.begin(), m_userIds.end(), id) != m_userIds.end();
    if (it != m_templates.end() && !user) throw InputError("'" + id + "' is a shipped template's id: give the user template another id");
    if (it != m_templates.end()) {
        *it = std::move(tmpl);
    } else {
        m_userIds.push_back(id);
        m_templates.push_back(std::move(tmpl));
    }
}

bool TemplateLibrary::isUser(std::string_view id) const {
    std::lock_guard lock(*m_mutex);
    return std::find(m_userIds.begin(), m_userIds.end(), id) != m_userIds.end();
}

std::vector<TemplateLibrary::Category> TemplateLibrary::byCategory() const {
    std::map<std::string, std::vector<std::shared_ptr<const Template>>> groups;
    for (const auto& t : m_templates) groups[t->manifest().category].push_back(t);
    std::vector<Category> out;
    for (auto& [name, list] : groups) {
        std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a->manifest().title < b->manifest().title; });
        out.push_back({name, std::move(list)});
    }
    return out;
}

std::shared_ptr<const Template> TemplateLibrary::find(std::string_view id) const {
    std::lock_guard lock(*m_mutex);
    for (const auto& t : m_templates)
        if (t->id() == id) return t;
    return nullptr;
}

}  // namespace kx::engine
