// Local wall-clock time as "14:03:12", for labels of runs and pins.
#pragma once

#include <ctime>
#include <string>

namespace kx::app {

inline std::string clockText() {
    const std::time_t now = std::time(nullptr);
    char text[16];
    std::strftime(text, sizeof text, "%H:%M:%S", std::localtime(&now));
    return text;
}

}  // namespace kx::app
