#include "templates/share_string.hpp"

#include "util/error.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace kx::engine {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// [SECTION] base64url without padding (RFC 4648 section 5)

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string base64url(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() * 4 + 2) / 3);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                           static_cast<unsigned char>(bytes[i + 2]);
        for (int shift : {18, 12, 6, 0}) out += kAlphabet[(v >> shift) & 63];
    }
    if (const std::size_t rest = bytes.size() - i; rest > 0) {
        unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
        if (rest == 2) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
        out += kAlphabet[(v >> 18) & 63];
        out += kAlphabet[(v >> 12) & 63];
        if (rest == 2) out += kAlphabet[(v >> 6) & 63];
    }
    return out;
}

[[noreturn]] void refuse(const std::string& why) { throw InputError("share string: " + why); }

std::string fromBase64url(std::string_view text) {
    static const std::array<int, 256> value = [] {
        std::array<int, 256> v{};
        v.fill(-1);
        for (int i = 0; i < 64; ++i) v[static_cast<unsigned char>(kAlphabet[i])] = i;
        return v;
    }();
    std::string out;
    out.reserve(text.size() * 3 / 4);
    unsigned acc = 0;
    int bits = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const int v = value[static_cast<unsigned char>(text[i])];
        if (v < 0) {
            const unsigned char c = static_cast<unsigned char>(text[i]);
            refuse(std::isprint(c) ? fmt::format("'{}' at position {} is not a base64url character", static_cast<char>(c), i + kSharePrefix.size() + 1)
                                   : fmt::format("byte {:#04x} at position {} is not a base64url character", c, i + kSharePrefix.size() + 1));
        }
        acc = (acc << 6) | static_cast<unsigned>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((acc >> bits) & 0xff);
        }
    }
    if (text.size() % 4 == 1) refuse("cut short (its length is not one base64url can have): copy the whole line");
    return out;
}

// [SECTION] zlib

std::string deflateText(std::string_view text) {
    uLongf size = compressBound(static_cast<uLong>(text.size()));
    std::string out(size, '\0');
    if (compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(text.data()), static_cast<uLong>(text.size()),
                  Z_BEST_COMPRESSION) != Z_OK)
        throw std::runtime_error("zlib could not compress the share data");
    out.resize(size);
    return out;
}

// Inflates in chunks and stops past the cap, so a small string cannot expand into gigabytes.
std::string inflateText(const std::string& data) {
    z_stream z{};
    if (inflateInit(&z) != Z_OK) throw std::runtime_error("zlib could not start");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    std::string out;
    std::array<char, 16384> chunk;
    int rc = Z_OK;
    while (rc == Z_OK) {
        z.next_out = reinterpret_cast<Bytef*>(chunk.data());
        z.avail_out = static_cast<uInt>(chunk.size());
        rc = inflate(&z, Z_NO_FLUSH);
        out.append(chunk.data(), chunk.size() - z.avail_out);
        if (out.size() > kMaxShareJsonBytes) {
            inflateEnd(&z);
            refuse(fmt::format("its data expands to more than {} bytes", kMaxShareJsonBytes));
        }
    }
    const bool trailing = z.avail_in != 0;
    inflateEnd(&z);
    if (rc != Z_STREAM_END) refuse(rc == Z_BUF_ERROR || rc == Z_OK ? "cut short: copy the whole line" : "damaged (its compressed data does not decode)");
    if (trailing) refuse("damaged (bytes after the end of its data)");
    return out;
}

// [SECTION] Fields

bool isIdentifier(const std::string& s, std::size_t maxLength) {
    return !s.empty() && s.size() <= maxLength && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_') &&
           std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

const json& field(const json& doc, const char* key, json::value_t type, const char* what) {
    const auto it = doc.find(key);
    if (it == doc.end()) refuse(fmt::format("'{}' is missing", key));
    if (it->type() != type) refuse(fmt::format("'{}' must be {}", key, what));
    return *it;
}

void readConfig(const json& doc, ShareData& data) {
    const json& config = field(doc, "config", json::value_t::object, "an object of parameter values");
    if (config.size() > 256) refuse("'config' has more than 256 parameters");
    for (const auto& [key, value] : config.items()) {
        if (!isIdentifier(key, 64)) refuse(fmt::format("'{}' is not a parameter name", key.substr(0, 64)));
        if (!value.is_string() || value.get_ref<const std::string&>().size() > 256) refuse(fmt::format("parameter '{}' must be text", key));
        data.config[key] = value.get<std::string>();
    }
}

void readSizes(const json& doc, ShareData& data) {
    const auto it = doc.find("sizes");
    if (it == doc.end()) return;
    if (!it->is_object()) refuse("'sizes' must be an object of integers");
    if (it->size() > 64) refuse("'sizes' has more than 64 sizes");
    for (const auto& [key, value] : it->items()) {
        if (!isIdentifier(key, 64)) refuse(fmt::format("'{}' is not a size name", key.substr(0, 64)));
        // Integers only, 1 to 2^62: the largest a template's formulas multiply without overflow.
        if (!value.is_number_integer() || value.get<long long>() < 1 || value.get<long long>() > (1LL << 62))
            refuse(fmt::format("size '{}' must be an integer from 1 to 2^62", key));
        data.sizes[key] = value.get<long long>();
    }
}

void readFiles(const json& doc, ShareData& data) {
    const auto it = doc.find("files");
    if (it == doc.end()) return;
    if (!it->is_object()) refuse("'files' must be an object of file texts");
    if (it->size() > kMaxUserTemplateFiles) refuse(fmt::format("'files' holds more than {} files", kMaxUserTemplateFiles));
    for (const auto& [name, text] : it->items()) {
        try {
            checkTemplateFileName(name);
        } catch (const InputError& e) {
            refuse(e.what());
        }
        if (!text.is_string()) refuse(fmt::format("file '{}' must be text", name));
        data.files[name] = text.get<std::string>();
    }
    if (!data.files.count(kManifestFileName)) refuse("it carries files but no manifest.xml");
}

}  // namespace

std::string encodeShareString(const ShareData& data) {
    json doc = {{"template", data.templateId}, {"arch", data.arch}, {"config", data.config}, {"flags", data.flags.canonical()}};
    if (!data.sizes.empty()) doc["sizes"] = data.sizes;
    if (!data.files.empty()) doc["files"] = data.files;
    return shareStringOfJson(doc.dump());
}

std::string shareStringOfJson(std::string_view json) { return std::string(kSharePrefix) + base64url(deflateText(json)); }

ShareData decodeShareString(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    if (text.empty()) refuse("empty");
    if (text.size() > kMaxShareStringChars) refuse(fmt::format("{} characters, more than the {} one may have", text.size(), kMaxShareStringChars));
    if (text.substr(0, kSharePrefix.size()) != kSharePrefix) {
        // "kx7:...": a later format; anything else is not a share string at all.
        const std::size_t colon = text.find(':');
        const std::string_view head = text.substr(0, std::min<std::size_t>(colon, 12));
        if (colon != std::string_view::npos && head.size() > 2 && head.substr(0, 2) == "kx" &&
            std::all_of(head.begin() + 2, head.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
            refuse(fmt::format("version {} is newer than this Kernel Explorer reads ({}); update it", head.substr(2), kSharePrefix));
        refuse(fmt::format("it must start with {} (a Kernel Explorer share string)", kSharePrefix));
    }
    const std::string bytes = fromBase64url(text.substr(kSharePrefix.size()));
    const json doc = json::parse(inflateText(bytes), nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) refuse("damaged (its data is not a JSON object)");
    static const char* const kKnown[] = {"template", "arch", "config", "flags", "sizes", "files"};
    for (const auto& [key, value] : doc.items())
        if (std::find(std::begin(kKnown), std::end(kKnown), key) == std::end(kKnown)) refuse(fmt::format("unknown field '{}'", key.substr(0, 64)));
    ShareData data;
    data.templateId = field(doc, "template", json::value_t::string, "a template id").get<std::string>();
    if (!isIdentifier(data.templateId, 64)) refuse(fmt::format("'{}' is not a template id", data.templateId.substr(0, 64)));
    data.arch = field(doc, "arch", json::value_t::string, "an arch name").get<std::string>();
    if (!isIdentifier(data.arch, 32)) refuse(fmt::format("'{}' is not an arch name", data.arch.substr(0, 32)));
    readConfig(doc, data);
    try {
        data.flags = parseCompileFlags(field(doc, "flags", json::value_t::string, "text").get<std::string>());
    } catch (const InputError& e) {
        refuse(e.what());
    }
    readSizes(doc, data);
    readFiles(doc, data);
    return data;
}

ShareData shareDataOf(const TemplateLibrary& library, const Template& tmpl, const std::string& arch, const Config& config,
                      const SizeMap& sizes) {
    ShareData data;
    data.templateId = tmpl.id();
    data.arch = arch;
    data.config = config.values;
    data.flags = config.flags;
    // Only the sizes that differ from the defaults: a shorter string, the same variant.
    const SizeMap defaults = tmpl.defaultSizes();
    for (const auto& [name, value] : sizes)
        if (auto it = defaults.find(name); it == defaults.end() || it->second != value) data.sizes[name] = value;
    if (library.isUser(tmpl.id())) data.files = filesOfTemplate(tmpl);
    return data;
}

namespace {

// The carried template: the loaded one when it is the same, else installed under a free id.
std::shared_ptr<const Template> installCarried(const ShareData& data, TemplateLibrary& library, const fs::path& userRoot, OpenedShare& out) {
    if (const auto existing = library.find(data.templateId); existing && library.isUser(existing->id())) {
        try {
            if (filesOfTemplate(*existing) == data.files) {
                out.folder = existing->manifest().folder;
                return existing;
            }
        } catch (const InputError&) {
            // Its folder cannot be read back: install the carried one beside it.
        }
    }
    const std::string id = freeTemplateId(library, userRoot, data.templateId);
    TemplateFiles files = data.files;
    if (id != data.templateId) files[kManifestFileName] = manifestWithId(files[kManifestFileName], id);
    out.folder = userRoot / id;
    writeTemplateFolder(out.folder, files);
    auto installed = loadTemplateFolder(out.folder);
    library.putUser(installed);
    out.installed = true;
    return installed;
}

}  // namespace

OpenedShare openShare(const ShareData& data, TemplateLibrary& library, const ArchDatabase& arches, const fs::path& userRoot) {
    OpenedShare out;
    out.arch = arches.findArch(data.arch);
    if (out.arch == nullptr) throw InputError(fmt::format("the share string's arch '{}' is not known here (see kx arches)", data.arch));
    const auto configOf = [&](const Template& t) {
        Config config = t.withValues(t.defaultConfig(), data.config);
        config.flags = data.flags;
        std::map<std::string, std::string> sizeText;
        for (const auto& entry : data.sizes) sizeText[entry.first] = std::to_string(entry.second);
        out.sizes = t.withSizes(sizeText);
        return config;
    };
    std::shared_ptr<const Template> tmpl;
    if (data.files.empty()) {
        tmpl = library.find(data.templateId);
        if (!tmpl)
            throw InputError(fmt::format("the share string names the template '{}', which this installation does not have (see kx templates)",
                                         data.templateId));
    } else {
        // The carried template is checked in memory, where it would go, with the shared values:
        // nothing is written for one that does not load or does not take them.
        out.carriedTemplate = true;
        const auto carried = templateFromText(data.files.at(kManifestFileName), data.files, userRoot / data.templateId);
        if (carried->id() != data.templateId)
            refuse(fmt::format("its manifest's id '{}' is not its template '{}'", carried->id(), data.templateId));
        configOf(*carried);
        tmpl = installCarried(data, library, userRoot, out);
    }
    out.config = configOf(*tmpl);
    out.tmpl = std::move(tmpl);
    return out;
}

}  // namespace kx::engine
