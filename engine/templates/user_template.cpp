// The user's own templates (user_template.hpp): a pasted kernel's template, ids, and template
// folders read and written. The pasted kernel's manifest stays a raw string in pastedManifest
// (24 lines), readable as the XML it writes. lizard counts that function as 123 lines: it takes
// the apostrophes inside the raw string for character literals and loses the braces after them.
#include "templates/user_template.hpp"

#include "util/error.hpp"
#include "util/output_file.hpp"

#include <fmt/format.h>
#include <tinyxml2.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <string_view>

namespace kx::engine {

namespace fs = std::filesystem;

namespace {

// The text with comments and the contents of string and character literals blanked (newlines
// kept), so a search finds code only and its positions are the original text's.
std::string codeOnly(const std::string& text) {
    std::string out = text;
    enum class State { Code, Line, Block, String, Char } state = State::Code;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const char c = text[i];
        const char next = i + 1 < text.size() ? text[i + 1] : '\0';
        switch (state) {
        case State::Code:
            if (c == '/' && next == '/') state = State::Line;
            else if (c == '/' && next == '*') state = State::Block;
            else if (c == '"') state = State::String;
            else if (c == '\'') state = State::Char;
            if (state == State::Line || state == State::Block) out[i] = ' ';
            continue;
        case State::Line:
            if (c == '\n') state = State::Code;
            else out[i] = ' ';
            continue;
        case State::Block:
            if (c == '*' && next == '/') {
                out[i] = out[i + 1] = ' ';
                ++i;
                state = State::Code;
            } else if (c != '\n') {
                out[i] = ' ';
            }
            continue;
        case State::String:
        case State::Char:
            if (c == '\\' && next != '\0') {
                out[i] = ' ';
                if (next != '\n') out[i + 1] = ' ';
                ++i;
            } else if ((state == State::String && c == '"') || (state == State::Char && c == '\'') || c == '\n') {
                state = State::Code;
            } else {
                out[i] = ' ';
            }
            continue;
        }
    }
    return out;
}

int lineAt(const std::string& text, std::size_t pos) {
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min(pos, text.size())), '\n'));
}

struct KernelMatch {
    std::size_t globalPos = 0;  // where "__global__" starts
    std::size_t namePos = 0;
    std::string name;
};

bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A small scanner over code (codeOnly's text) instead of std::regex, whose matcher recurses per
// character and would overflow the stack on the long runs of blanks a big comment leaves.
struct Scanner {
    const std::string& code;
    std::size_t pos;

    void skipSpace() {
        while (pos < code.size() && std::isspace(static_cast<unsigned char>(code[pos]))) ++pos;
    }
    std::string word() {
        const std::size_t start = pos;
        while (pos < code.size() && isIdentChar(code[pos])) ++pos;
        return code.substr(start, pos - start);
    }
    // Skips "(...)" with nested parentheses; false when unbalanced.
    bool skipParens() {
        if (pos >= code.size() || code[pos] != '(') return false;
        for (int depth = 0; pos < code.size(); ++pos) {
            depth += code[pos] == '(' ? 1 : code[pos] == ')' ? -1 : 0;
            if (depth == 0) {
                ++pos;
                return true;
            }
        }
        return false;
    }
    void skipLaunchBounds() {
        const std::size_t save = pos;
        if (word() == "__launch_bounds__") {
            skipSpace();
            if (skipParens()) {
                skipSpace();
                return;
            }
        }
        pos = save;
    }
};

// The kernel declared at `global` ("__global__ [bounds] void [bounds] NAME("), if it is one.
std::optional<KernelMatch> kernelAt(const std::string& code, std::size_t global) {
    Scanner s{code, global + std::string_view("__global__").size()};
    s.skipSpace();
    s.skipLaunchBounds();
    if (s.word() != "void") return std::nullopt;
    s.skipSpace();
    s.skipLaunchBounds();
    const std::size_t namePos = s.pos;
    std::string name = s.word();
    s.skipSpace();
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) || s.pos >= code.size() || code[s.pos] != '(')
        return std::nullopt;
    return KernelMatch{global, namePos, std::move(name)};
}

// True when a template<...> header precedes the declaration at `pos` (over specifiers such as
// static or __host__).
bool templatedAt(const std::string& code, std::size_t pos) {
    while (pos > 0) {
        const char c = code[pos - 1];
        if (std::isspace(static_cast<unsigned char>(c)) || isIdentChar(c) || c == '"') --pos;
        else return c == '>';
    }
    return false;
}

// The one __global__ function of the text; InputError otherwise.
KernelMatch findSingleKernel(const std::string& text) {
    const std::string code = codeOnly(text);
    std::vector<KernelMatch> kernels;
    for (std::size_t at = code.find("__global__"); at != std::string::npos; at = code.find("__global__", at + 1)) {
        const bool word = (at == 0 || !isIdentChar(code[at - 1])) && (at + 10 >= code.size() || !isIdentChar(code[at + 10]));
        if (!word) continue;
        if (templatedAt(code, at))
            throw InputError(fmt::format("line {}: a templated kernel needs a manifest that instantiates it; paste a kernel that is not a template",
                                         lineAt(text, at)));
        const auto k = kernelAt(code, at);
        if (!k)
            throw InputError(fmt::format("line {}: __global__ is not followed by 'void NAME(': write the kernel as __global__ void NAME(...)",
                                         lineAt(text, at)));
        kernels.push_back(*k);
    }
    if (kernels.empty()) throw InputError("no kernel found: the text has no __global__ void NAME(...) function");
    if (kernels.size() > 1) {
        std::string names;
        for (const KernelMatch& k : kernels) names += (names.empty() ? "" : ", ") + k.name;
        throw InputError(fmt::format("{} kernels ({}): paste one, or write a manifest whose <launches> runs them in turn", kernels.size(), names));
    }
    return kernels.front();
}

// True when the text before `pos` ends in extern "C" (blanks between).
bool externCBefore(const std::string& text, std::size_t pos) {
    auto trim = [&](std::size_t p) {
        while (p > 0 && std::isspace(static_cast<unsigned char>(text[p - 1]))) --p;
        return p;
    };
    pos = trim(pos);
    if (pos < 3 || text.compare(pos - 3, 3, "\"C\"") != 0) return false;
    pos = trim(pos - 3);
    return pos >= 6 && text.compare(pos - 6, 6, "extern") == 0 && (pos == 6 || !isIdentChar(text[pos - 7]));
}

// The manifest of a pasted kernel (templateForKernel). The id is a checked identifier.
std::string pastedManifest(const std::string& id, const std::string& kernelName) {
    return fmt::format(R"xml(<?xml version="1.0"?>
<!-- Made by Kernel Explorer from a pasted kernel: a 1-D launch of BLOCK threads per block over n
     threads in all. It compiles and shows PTX, SASS, resources and occupancy. To run it, list the
     kernel's arguments in <args> and give <launch> its real shape (templates/README.md). -->
<template id="{0}" title="{1} (pasted)" category="Your kernels" languages="cuda">
  <summary>The kernel {1}, pasted into Kernel Explorer.</summary>
  <source file="kernel.cu"/>
  <name-pattern>{0}_b{{BLOCK}}</name-pattern>
  <parameters>
    <param name="BLOCK" type="int" values="32,64,128,256,512,1024" default="256" label="Block size" group="Launch"
           help="Threads per block of the 1-D launch (also ${{BLOCK}} in the source)."/>
  </parameters>
  <constraints>
    <constraint expr="BLOCK &lt;= max_threads_per_block" message="A block of {{BLOCK}} threads is over {{arch}}'s {{max_threads_per_block}}"/>
  </constraints>
  <problem>
    <size name="n" default="1048576" help="Threads launched in all"/>
  </problem>
  <launch grid-x="ceil_div(n,BLOCK)" block-x="BLOCK"/>
</template>
)xml",
                       id, kernelName);
}

}  // namespace

std::string pastedKernelName(const std::string& kernelText) { return findSingleKernel(kernelText).name; }

TemplateFiles templateForKernel(const std::string& kernelText, const std::string& id) {
    if (templateIdFrom(id) != id) throw InputError("'" + id + "' is not a template id (lower-case letters, digits and '_')");
    if (kernelText.size() > kMaxUserTemplateBytes)
        throw InputError(fmt::format("the kernel is {} bytes; a pasted kernel may be at most {}", kernelText.size(), kMaxUserTemplateBytes));
    const KernelMatch k = findSingleKernel(kernelText);
    std::string source = kernelText;
    source.replace(k.namePos, k.name.size(), "${KERNEL_NAME}");
    // The entry point keeps its plain name only with C linkage; nested linkage specifications are
    // allowed, so one inside an extern "C" { } block does no harm.
    if (!externCBefore(kernelText, k.globalPos)) source.insert(k.globalPos, "extern \"C\" ");
    if (source.empty() || source.back() != '\n') source += '\n';
    return {{kManifestFileName, pastedManifest(id, k.name)}, {"kernel.cu", source}};
}

std::string templateIdFrom(const std::string& text) {
    std::string id;
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u) && u < 128) id += static_cast<char>(std::tolower(u));
        else if (!id.empty() && id.back() != '_') id += '_';
    }
    while (!id.empty() && id.back() == '_') id.pop_back();
    if (id.empty()) return "kernel";
    if (std::isdigit(static_cast<unsigned char>(id[0]))) id = "k" + id;
    if (id.size() > 48) id.resize(48);
    while (id.back() == '_') id.pop_back();
    return id;
}

std::string freeTemplateId(const TemplateLibrary& library, const fs::path& root, const std::string& base) {
    auto taken = [&](const std::string& id) {
        std::error_code ec;
        return library.find(id) != nullptr || fs::exists(root / id, ec);
    };
    if (!taken(base)) return base;
    for (int n = 2;; ++n)
        if (const std::string id = fmt::format("{}_{}", base, n); !taken(id)) return id;
}

std::string manifestWithId(const std::string& manifestXml, const std::string& id) {
    tinyxml2::XMLDocument doc;
    if (doc.Parse(manifestXml.data(), manifestXml.size()) != tinyxml2::XML_SUCCESS)
        throw InputError(fmt::format("manifest.xml:{}: malformed XML: {}", doc.ErrorLineNum(), doc.ErrorStr() ? doc.ErrorStr() : "cannot parse"));
    tinyxml2::XMLElement* root = doc.RootElement();
    if (!root || std::string(root->Name()) != "template") throw InputError("manifest.xml: the root element must be <template>");
    root->SetAttribute("id", id.c_str());
    tinyxml2::XMLPrinter printer;
    doc.Print(&printer);
    return printer.CStr();
}

TemplateFiles filesOfTemplate(const Template& tmpl) {
    const TemplateManifest& m = tmpl.manifest();
    std::ifstream in(m.manifestFile, std::ios::binary);
    std::string manifest((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in && !in.eof()) throw InputError("cannot read " + m.manifestFile);
    TemplateFiles files = {{kManifestFileName, std::move(manifest)}};
    for (const auto& [lang, relative] : m.sourceFiles) files[relative] = tmpl.kernelSource(lang);
    for (const auto& [name, text] : tmpl.pieces())
        if (name.find('/') == std::string::npos) files[name] = text;  // its own pieces ("common/..." are every installation's)
    return files;
}

void checkTemplateFileName(const std::string& name) {
    const bool ok = !name.empty() && name.size() <= 64 && name[0] != '.' && std::all_of(name.begin(), name.end(), [](char c) {
                        return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
                    });
    if (!ok) throw InputError("'" + name + "' is not a template file name (letters, digits, '.', '_' and '-', in the template's own folder)");
}

TemplateFiles readTemplateFolder(const fs::path& folder) {
    TemplateFiles files;
    std::size_t total = 0;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
        if (!entry.is_regular_file()) continue;
        const std::string name = entry.path().filename().string();
        if (name.empty() || name[0] == '.') continue;
        total += entry.file_size();
        if (files.size() >= kMaxUserTemplateFiles || total > kMaxUserTemplateBytes)
            throw InputError(fmt::format("{} holds more than {} files or {} bytes: not a template folder to edit", folder.string(),
                                         kMaxUserTemplateFiles, kMaxUserTemplateBytes));
        std::ifstream in(entry.path(), std::ios::binary);
        files[name] = std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
    if (ec) throw InputError("cannot read " + folder.string() + ": " + ec.message());
    return files;
}

void writeTemplateFolder(const fs::path& folder, const TemplateFiles& files) {
    for (const auto& [name, text] : files) checkTemplateFileName(name);
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) throw OutputError("cannot create " + folder.string() + ": " + ec.message());
    for (const auto& [name, text] : files) writeOutputFile(folder / name, text);
}

}  // namespace kx::engine
