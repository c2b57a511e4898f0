// The set of architectures and devices the product knows, loaded from XML files.
#pragma once

#include "arch/arch.hpp"

#include <filesystem>
#include <string_view>
#include <vector>

namespace kx::engine {

class ArchDatabase {
public:
    // Loads every *.xml file under archDir (architectures) and deviceDir (devices), sorted by
    // file name. A malformed file, or a malformed entry in one, is recorded in errors() with its
    // file and line and skipped; the other files still load. Never throws on bad data.
    static ArchDatabase load(const std::filesystem::path& archDir,
                             const std::filesystem::path& deviceDir);

    // Loads from <dataRoot>/assets/arch and <dataRoot>/assets/devices.
    static ArchDatabase loadFromDataRoot(const std::filesystem::path& dataRoot);

    // Sorted: NVIDIA by compute capability, then AMD by name.
    const std::vector<Arch>& arches() const { return m_arches; }
    const std::vector<DeviceSpec>& devices() const { return m_devices; }
    const std::vector<LoadError>& errors() const { return m_errors; }

    // nullptr when unknown. Exact name match ("sm_90", "sm_90a", "gfx942").
    const Arch* findArch(std::string_view name) const;
    const DeviceSpec* findDevice(std::string_view id) const;

private:
    std::vector<Arch> m_arches;
    std::vector<DeviceSpec> m_devices;
    std::vector<LoadError> m_errors;
};

}  // namespace kx::engine
