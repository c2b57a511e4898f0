#include "run/calibration.hpp"

#include "util/data_paths.hpp"

#include <nlohmann/json.hpp>

#include <fstream>

namespace kx::engine {
namespace fs = std::filesystem;

fs::path calibrationPath(const std::string& deviceName) {
    std::string file;
    for (char c : deviceName) file += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
    return cacheRoot() / "calibration" / (file + ".json");
}

std::optional<Calibration> loadCalibration(const std::string& deviceName) {
    std::ifstream in(calibrationPath(deviceName));
    if (!in) return std::nullopt;
    try {
        const nlohmann::json j = nlohmann::json::parse(in);
        Calibration c;
        c.device = j.at("device");
        c.measuredAt = j.value("measured_at", "");
        c.copyGBs = j.at("copy_gbs");
        c.gemmTflops = j.at("gemm_tflops").get<std::map<std::string, double>>();
        c.gemmSize = j.value("gemm_size", 0);
        return c;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

void saveCalibration(const Calibration& c) {
    const fs::path path = calibrationPath(c.device);
    fs::create_directories(path.parent_path());
    const nlohmann::json j = {{"device", c.device}, {"measured_at", c.measuredAt}, {"copy_gbs", c.copyGBs},
                              {"gemm_tflops", c.gemmTflops}, {"gemm_size", c.gemmSize}};
    const fs::path tmp = path.string() + ".tmp";
    {
        std::ofstream out(tmp);
        out << j.dump(2) << "\n";
    }
    fs::rename(tmp, path);
}

}  // namespace kx::engine
