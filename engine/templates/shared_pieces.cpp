// Shared device pieces of the templates (templates/common/), found and read; template.cpp puts
// them in place when it renders.
#include "templates/shared_pieces.hpp"

#include "templates/template_library.hpp"
#include "util/data_paths.hpp"
#include "util/error.hpp"

#include <fstream>

namespace kx::engine {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kIncludePrefix = "#include \"common/";

std::string_view trimmed(std::string_view s) {
    const std::size_t first = s.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// "common/NAME.cuh" with NAME of [a-z0-9_]+, so that a name can never leave the folder.
bool isPieceName(std::string_view name) {
    constexpr std::string_view kFolder = "common/", kSuffix = ".cuh";
    if (name.size() <= kFolder.size() + kSuffix.size() || name.substr(0, kFolder.size()) != kFolder ||
        name.substr(name.size() - kSuffix.size()) != kSuffix)
        return false;
    for (char c : name.substr(kFolder.size(), name.size() - kFolder.size() - kSuffix.size()))
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

std::string readPiece(const fs::path& file, const std::string& location) {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) throw InputError(location + "shared piece " + file.string() + " does not exist");
    const auto size = fs::file_size(file, ec);
    if (ec || size > kMaxTemplateFileBytes)
        throw InputError(location + "shared piece " + file.string() + " cannot be read or is over " +
                         std::to_string(kMaxTemplateFileBytes) + " bytes");
    std::ifstream in(file, std::ios::binary);
    std::string text(size, '\0');
    if (!in || !in.read(text.data(), static_cast<std::streamsize>(size)))
        throw InputError(location + "shared piece " + file.string() + " cannot be read");
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
        if (text.substr(0, kIncludePrefix.size()) == kIncludePrefix && text.size() > kIncludePrefix.size() && text.back() == '"')
            out.push_back({line, std::string(text.substr(10, text.size() - 11))});
        start = end + 1;
    }
    return out;
}

fs::path sharedPiecesRoot() { return dataRoot() / "templates"; }

SharedPieces readSharedPieces(const std::string& source, const fs::path& templatesDir, const std::string& where) {
    SharedPieces pieces;
    for (const SharedPieceInclude& inc : sharedPieceIncludes(source)) {
        const std::string location = where + ":" + std::to_string(inc.line) + ": ";
        if (!isPieceName(inc.name))
            throw InputError(location + "shared piece \"" + inc.name + "\": a name is common/ then lower-case letters, digits and '_', then .cuh");
        if (pieces.count(inc.name)) continue;
        std::string text = readPiece(templatesDir / inc.name, location);
        if (!sharedPieceIncludes(text).empty())
            throw InputError(location + "shared piece " + inc.name + " includes another piece; pieces do not nest");
        pieces.emplace(inc.name, std::move(text));
    }
    return pieces;
}

}  // namespace kx::engine
