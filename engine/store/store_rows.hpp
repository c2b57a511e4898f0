// Helpers shared by the translation units of SessionStore (session_store.cpp, session_sweeps.cpp).
#pragma once

#include "templates/config.hpp"

#include <string>

namespace SQLite {
class Statement;
}

namespace kx::engine::store_detail {

// The current UTC time as "2026-11-25T09:00:00Z", the form every table stores.
std::string nowText();

// A variant's config from its stored JSON; InputError naming `where` when the JSON is damaged.
Config configFrom(const std::string& templateId, const std::string& json, const std::string& where);
// A sweep point's or preset's config: the parameters from its stored JSON, the compiler flags from
// its stored Config::canonical() text (they follow a '|'); InputError naming `where` when either
// is damaged.
Config configFrom(const std::string& templateId, const std::string& json, const std::string& canonical, const std::string& where);

// Binds parameters 1 to 6 of an insert into variants or presets, whose first columns are
// (name, template_id, arch, config, config_json, notes).
void bindNamedConfig(SQLite::Statement& st, const std::string& name, const std::string& arch, const Config& config, const std::string& notes);

}  // namespace kx::engine::store_detail
