// Where the program finds its data (templates/, assets/, tutorials/).
#pragma once

#include <filesystem>

namespace kx::engine {

// The data root, in order: $KX_DATA_DIR; the folder two levels above the executable when it
// holds templates/ (a build tree next to the sources); the KX_DATA_DIR compiled in.
std::filesystem::path dataRoot();

// Per-user cache folder for compiled artifacts: $KX_CACHE_DIR, else $XDG_CACHE_HOME/kernel-explorer,
// else ~/.cache/kernel-explorer. Created on first use.
std::filesystem::path cacheRoot();

// Per-user settings (the recent-sessions list): $XDG_CONFIG_HOME/kernel-explorer, else
// ~/.config/kernel-explorer. Created on first use.
std::filesystem::path configRoot();

// Where new sessions go when the user has not chosen a file: $XDG_DATA_HOME/kernel-explorer/sessions,
// else ~/.local/share/kernel-explorer/sessions. Created on first use.
std::filesystem::path sessionsRoot();

// The user's own templates (one folder each, as under templates/): $XDG_DATA_HOME/kernel-explorer/
// templates, else ~/.local/share/kernel-explorer/templates. Created on first use. The app and kx
// load them after the shipped templates; the app writes new ones here.
std::filesystem::path userTemplatesRoot();

}  // namespace kx::engine
