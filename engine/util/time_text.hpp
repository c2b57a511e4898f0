// The current time as text, thread-safe (std::localtime and std::gmtime share one static buffer,
// and the app formats times on worker threads as well as the UI thread).
#pragma once

#include <ctime>
#include <string>

namespace kx::engine {

// Now in UTC, ISO 8601: "2026-11-21T13:03:12Z" (as sessions and calibrations store times).
inline std::string utcNowText() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

// Now in local time with a strftime format ("%H:%M:%S").
inline std::string localNowText(const char* format) {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char text[64];
    std::strftime(text, sizeof text, format, &local);
    return text;
}

}  // namespace kx::engine
