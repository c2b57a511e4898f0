// Writing a view's export (a table, a roofline's CSV) to the file the user named, and the line the
// view shows after it.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace kx::app {

// Writes text to file, creating its folder first (a folder that cannot be made shows up as the
// write failing). Returns whether it was written; message becomes "wrote FILE" or "cannot
// write FILE".
inline bool writeExportFile(const std::filesystem::path& file, const std::string& text, std::string& message) {
    std::error_code ec;
    if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
    std::ofstream out(file);
    out << text;
    if (!out) {
        message = "cannot write " + file.string();
        return false;
    }
    message = "wrote " + file.string();
    return true;
}

}  // namespace kx::app
