#include "util/data_paths.hpp"

#include <cstdlib>
#include <system_error>
#include <unistd.h>

#ifndef KX_DEFAULT_DATA_DIR
#define KX_DEFAULT_DATA_DIR "."
#endif

namespace kx::engine {
namespace fs = std::filesystem;

static fs::path executableDir() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe.parent_path();
}

fs::path dataRoot() {
    if (const char* env = std::getenv("KX_DATA_DIR"); env && *env) return fs::path(env);
    // build/bin/kx -> repository root; an install puts data in <prefix>/share/kernel-explorer.
    const fs::path exeDir = executableDir();
    if (!exeDir.empty()) {
        for (const fs::path& candidate : {exeDir.parent_path().parent_path(),
                                          exeDir.parent_path() / "share" / "kernel-explorer"}) {
            std::error_code ec;
            if (fs::is_directory(candidate / "templates", ec) && fs::is_directory(candidate / "assets", ec))
                return candidate;
        }
    }
    return fs::path(KX_DEFAULT_DATA_DIR);
}

// $ENV_VAR/kernel-explorer/<sub>, else ~/<homeDefault>/kernel-explorer/<sub>, else under the
// temporary folder; created on first use.
static fs::path userFolder(const char* xdgVariable, const char* homeDefault, const fs::path& sub) {
    fs::path root;
    if (const char* xdg = std::getenv(xdgVariable); xdg && *xdg) {
        root = fs::path(xdg) / "kernel-explorer";
    } else if (const char* home = std::getenv("HOME"); home && *home) {
        root = fs::path(home) / homeDefault / "kernel-explorer";
    } else {
        root = fs::temp_directory_path() / "kernel-explorer";
    }
    if (!sub.empty()) root /= sub;
    std::error_code ec;
    fs::create_directories(root, ec);
    return root;
}

fs::path cacheRoot() {
    if (const char* env = std::getenv("KX_CACHE_DIR"); env && *env) {
        std::error_code ec;
        fs::create_directories(env, ec);
        return fs::path(env);
    }
    return userFolder("XDG_CACHE_HOME", ".cache", "");
}

fs::path configRoot() { return userFolder("XDG_CONFIG_HOME", ".config", ""); }

fs::path sessionsRoot() { return userFolder("XDG_DATA_HOME", ".local/share", "sessions"); }

fs::path userTemplatesRoot() { return userFolder("XDG_DATA_HOME", ".local/share", "templates"); }

}  // namespace kx::engine
