#include "templates/config.hpp"

#include "util/error.hpp"
#include "util/hash.hpp"

namespace kx::engine {

std::string Config::canonical() const {
    std::string text = templateId + ":";
    bool first = true;
    for (const auto& [key, value] : values) {
        if (!first) text += ',';
        first = false;
        text += key + "=" + value;
    }
    if (!flags.isDefault()) text += "|" + flags.canonical();
    return text;
}

std::uint64_t Config::hash() const { return hash64(canonical()); }

const std::string& Config::at(const std::string& key) const {
    auto it = values.find(key);
    if (it == values.end()) throw InputError("config of '" + templateId + "' has no parameter '" + key + "'");
    return it->second;
}

}  // namespace kx::engine
