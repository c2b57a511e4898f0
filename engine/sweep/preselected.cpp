#include "sweep/preselected.hpp"

#include "util/error.hpp"

#include <tinyxml2.h>

#include <cstring>
#include <sstream>

namespace kx::engine {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& file, int line, const std::string& message) {
    throw InputError(file.string() + ":" + std::to_string(line) + ": " + message);
}

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        const auto first = item.find_first_not_of(" \t"), last = item.find_last_not_of(" \t");
        if (first != std::string::npos) items.push_back(item.substr(first, last - first + 1));
    }
    return items;
}

std::string xmlEscaped(const std::string& text) {
    std::string out;
    for (const char c : text) {
        if (c == '"') out += "&quot;";
        else if (c == '&') out += "&amp;";
        else if (c == '<') out += "&lt;";
        else out += c;
    }
    return out;
}

// flags="..." names compiler flags, unless the template has a parameter of that name.
bool isFlagsAttribute(const Template& tmpl, const char* name) {
    return std::strcmp(name, "flags") == 0 && !tmpl.manifest().findParam(name);
}

// size="M=16, N=8192": each item a size of the template with a value it allows.
std::vector<std::pair<std::string, std::string>> parseSizes(const Template& tmpl, const fs::path& file, const PreselectedSet& set,
                                                            const char* text) {
    std::vector<std::pair<std::string, std::string>> sizes;
    std::map<std::string, std::string> named;
    if (!text) return sizes;
    for (const std::string& item : splitList(text)) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
            fail(file, set.line, "set '" + set.name + "': size=\"...\" expects NAME=VALUE items, got '" + item + "'");
        std::string name = item.substr(0, eq), value = item.substr(eq + 1);
        name.erase(name.find_last_not_of(" \t") + 1);
        value.erase(0, value.find_first_not_of(" \t"));
        if (!named.emplace(name, value).second) fail(file, set.line, "set '" + set.name + "' names size " + name + " twice");
        sizes.emplace_back(name, value);
    }
    if (sizes.empty()) fail(file, set.line, "set '" + set.name + "': size=\"\" names no size (leave the attribute out)");
    try {
        (void)tmpl.withSizes(named);  // a size the template does not have, or a value it does not take
    } catch (const InputError& error) {
        fail(file, set.line, "set '" + set.name + "': " + error.what());
    }
    return sizes;
}

}  // namespace

bool PreselectedSet::coversArch(const std::string& arch) const {
    std::string family = arch;
    if (!family.empty() && (family.back() == 'a' || family.back() == 'f')) family.pop_back();
    for (const std::string& a : arches)
        if (a == "any" || a == arch || a == family) return true;
    return false;
}

std::vector<PreselectedSet> loadPreselected(const Template& tmpl) {
    const fs::path file = fs::path(tmpl.manifest().folder) / "preselected.xml";
    std::error_code ec;
    if (!fs::exists(file, ec)) return {};
    return loadPreselected(tmpl, file);
}

std::vector<PreselectedSet> loadPreselected(const Template& tmpl, const fs::path& file) {
    tinyxml2::XMLDocument doc;
    if (doc.LoadFile(file.c_str()) != tinyxml2::XML_SUCCESS)
        fail(file, doc.ErrorLineNum(), std::string("malformed XML: ") + (doc.ErrorStr() ? doc.ErrorStr() : "cannot read file"));
    const tinyxml2::XMLElement* root = doc.RootElement();
    if (!root || std::strcmp(root->Name(), "preselected") != 0) fail(file, root ? root->GetLineNum() : 1, "the root element must be <preselected>");
    const char* templateId = root->Attribute("template");
    if (!templateId || tmpl.id() != templateId)
        fail(file, root->GetLineNum(), std::string("<preselected> must name its template: template=\"") + tmpl.id() + "\"");
    std::vector<PreselectedSet> sets;
    for (const tinyxml2::XMLElement* e = root->FirstChildElement(); e; e = e->NextSiblingElement()) {
        if (std::strcmp(e->Name(), "set") != 0) fail(file, e->GetLineNum(), std::string("unexpected <") + e->Name() + "> in <preselected>");
        PreselectedSet set;
        set.file = file.string();
        set.line = e->GetLineNum();
        set.name = e->Attribute("name") ? e->Attribute("name") : "";
        if (set.name.empty()) fail(file, set.line, "<set> needs a name");
        set.help = e->Attribute("help") ? e->Attribute("help") : "";
        set.arches = splitList(e->Attribute("arches") ? e->Attribute("arches") : "");
        if (set.arches.empty()) fail(file, set.line, "<set name=\"" + set.name + "\"> needs arches=\"sm_80,sm_90\" (or \"any\")");
        set.sizes = parseSizes(tmpl, file, set, e->Attribute("size"));
        for (const PreselectedSet& earlier : sets)
            for (const std::string& a : set.arches)
                if (earlier.name == set.name && (earlier.coversArch(a) || a == "any"))
                    fail(file, set.line, "set '" + set.name + "' is already defined for " + a + " at line " + std::to_string(earlier.line));
        for (const tinyxml2::XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
            if (std::strcmp(c->Name(), "config") != 0) fail(file, c->GetLineNum(), std::string("unexpected <") + c->Name() + "> in <set>");
            PreselectedConfig config;
            config.line = c->GetLineNum();
            for (const tinyxml2::XMLAttribute* a = c->FirstAttribute(); a; a = a->Next()) {
                try {
                    if (isFlagsAttribute(tmpl, a->Name())) {
                        withFlags(CompileFlags{}, a->Value());  // names an unknown flag or a value out of range
                        config.flags = a->Value();
                        continue;
                    }
                    // withValues names an unknown parameter or a value that is not allowed.
                    config.values[a->Name()] = tmpl.withValues(tmpl.defaultConfig(), {{a->Name(), a->Value()}}).values.at(a->Name());
                } catch (const InputError& error) {
                    fail(file, config.line, error.what());
                }
            }
            set.configs.push_back(std::move(config));
        }
        if (set.configs.empty()) fail(file, set.line, "set '" + set.name + "' lists no <config>");
        sets.push_back(std::move(set));
    }
    return sets;
}

const PreselectedSet& findPreselected(const std::vector<PreselectedSet>& sets, const Template& tmpl, const std::string& name,
                                      const std::string& arch) {
    std::string forArch, otherArches;
    for (const PreselectedSet& s : sets) {
        if (s.name == name && s.coversArch(arch)) return s;
        if (s.coversArch(arch)) forArch += (forArch.empty() ? "" : ", ") + s.name;
        if (s.name == name) for (const std::string& a : s.arches) otherArches += (otherArches.empty() ? "" : ", ") + a;
    }
    std::string message = "no preselected set '" + name + "' of " + tmpl.id() + " for " + arch;
    if (!otherArches.empty()) message += " (it is for " + otherArches + ")";
    message += forArch.empty() ? "; " + tmpl.id() + " has no sets for " + arch : "; sets for " + arch + ": " + forArch;
    throw InputError(message);
}

SizeMap preselectedSizes(const Template& tmpl, const PreselectedSet* set, const std::map<std::string, std::string>& overrides) {
    std::map<std::string, std::string> text;
    if (set) text.insert(set->sizes.begin(), set->sizes.end());
    for (const auto& [name, value] : overrides) text[name] = value;
    return tmpl.withSizes(text);
}

std::string preselectedSizesText(const PreselectedSet& set) {
    std::string text;
    for (const auto& [name, value] : set.sizes) text += (text.empty() ? "" : ", ") + name + "=" + value;
    return text;
}

std::vector<Config> preselectedConfigs(const PreselectedSet& set, const Config& base) {
    std::vector<Config> configs;
    for (const PreselectedConfig& p : set.configs) {
        Config c = base;
        for (const auto& [k, v] : p.values) c.values[k] = v;
        c.flags = withFlags(c.flags, p.flags);
        configs.push_back(std::move(c));
    }
    return configs;
}

std::string preselectedConfigXml(const Template& tmpl, const Config& config) {
    const Config defaults = tmpl.defaultConfig();
    std::string line = "<config";
    for (const ParamSpec& p : tmpl.manifest().params) {
        const std::string& v = config.at(p.name);
        if (v != defaults.at(p.name)) line += " " + p.name + "=\"" + xmlEscaped(v) + "\"";
    }
    if (!config.flags.isDefault()) line += " flags=\"" + xmlEscaped(config.flags.canonical()) + "\"";
    return line + "/>";
}

}  // namespace kx::engine
