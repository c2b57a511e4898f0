// Local wall-clock times for labels of runs and variants.
#pragma once

#include "util/time_text.hpp"

#include <ctime>
#include <string>

namespace kx::app {

// Now, as "14:03:12".
inline std::string clockText() { return engine::localNowText("%H:%M:%S"); }

// An ISO 8601 UTC time ("2026-11-21T13:03:12Z", as sessions store them) in local time:
// "14:03:12" when it is today, else "2026-11-21 14:03". Unreadable text comes back as is.
inline std::string localTimeText(const std::string& isoUtc) {
    std::tm tm{};
    if (strptime(isoUtc.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm) == nullptr) return isoUtc;
    const std::time_t t = timegm(&tm);
    std::tm local{};
    localtime_r(&t, &local);
    const std::time_t now = std::time(nullptr);
    std::tm today{};
    localtime_r(&now, &today);
    char text[32];
    const bool sameDay = local.tm_year == today.tm_year && local.tm_yday == today.tm_yday;
    std::strftime(text, sizeof text, sameDay ? "%H:%M:%S" : "%Y-%m-%d %H:%M", &local);
    return text;
}

}  // namespace kx::app
