// Helpers shared by the translation units of SessionStore (session_store.cpp, session_sweeps.cpp).
#pragma once

#include "templates/config.hpp"

#include <string>

namespace kx::engine::store_detail {

// The current UTC time as "2026-11-25T09:00:00Z", the form every table stores.
std::string nowText();

// A variant's config from its stored JSON; InputError naming `where` when the JSON is damaged.
Config configFrom(const std::string& templateId, const std::string& json, const std::string& where);

}  // namespace kx::engine::store_detail
