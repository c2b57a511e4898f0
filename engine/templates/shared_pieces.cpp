// Device pieces of the templates (templates/common/, and a template's own in its folder), found
// and read; template.cpp puts them in place when it renders.
#include "templates/shared_pieces.hpp"

#include "templates/template_library.hpp"
#include "util/data_paths.hpp"
#include "util/error.hpp"

#include <fstream>

namespace kx::engine {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kIncludePrefix = "#include \"", kSuffix = ".cuh";

std::string_view trimmed(std::string_view s) {
    const std::size_t first = s.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

constexpr std::string_view kCommon = "common/";

// "common/NAME.cuh" (shared) or "NAME.cuh" (the template's own) with NAME of [a-z0-9_]+, so that
// a name can never leave its folder.
bool isPieceName(std::string_view name, bool local) {
    const std::string_view folder = local ? std::string_view() : kCommon;
    if (name.size() <= folder.size() + kSuffix.size() || name.substr(0, folder.size()) != folder ||
        name.substr(name.size() - kSuffix.size()) != kSuffix)
        return false;
    for (char c : name.substr(folder.size(), name.size() - folder.size() - kSuffix.size()))
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

std::string readPiece(const fs::path& file, const std::string& location) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) throw InputError(location + "piece " + file.string() + " does not exist");
    const auto size = fs::file_size(file, ec);
    if (ec || size > kMaxTemplateFileBytes)
        throw InputError(location + "piece " + file.string() + " cannot be read or is over " +
                         std::to_string(kMaxTemplateFileBytes) + " bytes");
    std::ifstream in(file, std::ios::binary);
    std::string text(size, '\0');
    if (!in || !in.read(text.data(), static_cast<std::streamsize>(size)))
        throw InputError(location + "piece " + file.string() + " cannot be read");
    return text;
}

}  // namespace

std::vector<SharedPieceInclude> sharedPieceIncludes(const std::string& source) {
    std::vector<SharedPieceInclude> out;
    int line = 1;
    for (std::size_t start = 0; start <= source.size(); ++line) {
        std::size_t end = source.find('\n', start);
        if (end == std::string::npos) end = source.size();
        const std::string_view text = trimmed(std::string_view(source).substr(start, end - start));
        if (text.substr(0, kIncludePrefix.size()) == kIncludePrefix && text.size() > kIncludePrefix.size() + 1 && text.back() == '"') {
            const std::string_view name = text.substr(kIncludePrefix.size(), text.size() - kIncludePrefix.size() - 1);
            if (name.substr(0, kCommon.size()) == kCommon) out.push_back({line, std::string(name), false});
            else if (name.find('/') == std::string_view::npos && name.size() > kSuffix.size() && name.substr(name.size() - kSuffix.size()) == kSuffix)
                out.push_back({line, std::string(name), true});
        }
        start = end + 1;
    }
    return out;
}

fs::path sharedPiecesRoot() { return dataRoot() / "templates"; }

SharedPieces readSharedPieces(const std::string& source, const fs::path& templatesDir, const std::string& where, const LocalPieceReader& readLocal) {
    SharedPieces pieces;
    for (const SharedPieceInclude& inc : sharedPieceIncludes(source)) {
        const std::string location = where + ":" + std::to_string(inc.line) + ": ";
        const std::string kind = inc.local ? "the template's own piece" : "shared piece";
        if (!isPieceName(inc.name, inc.local))
            throw InputError(location + kind + " \"" + inc.name + "\": a name is " + (inc.local ? "" : "common/ then ") +
                             "lower-case letters, digits and '_', then .cuh");
        if (pieces.count(inc.name)) continue;
        if (inc.local && !readLocal) throw InputError(location + kind + " " + inc.name + " has no template folder to come from");
        std::string text = inc.local ? readLocal(inc.name, location) : readPiece(templatesDir / inc.name, location);
        if (!sharedPieceIncludes(text).empty()) throw InputError(location + kind + " " + inc.name + " includes another piece; pieces do not nest");
        pieces.emplace(inc.name, std::move(text));
    }
    return pieces;
}

LocalPieceReader localPiecesIn(const fs::path& folder) {
    return [folder](const std::string& name, const std::string& location) { return readPiece(folder / name, location); };
}

}  // namespace kx::engine
