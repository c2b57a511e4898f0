#include "run/calibration.hpp"

#include "util/data_paths.hpp"
#include "util/output_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>

namespace kx::engine {
namespace fs = std::filesystem;

fs::path calibrationPath(const std::string& deviceName) {
    std::string file;
    for (char c : deviceName) file += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
    return cacheRoot() / "calibration" / (file + ".json");
}

namespace {

std::optional<Calibration> readCalibration(const fs::path& path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    try {
        return calibrationFromJson(nlohmann::json::parse(in));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace

nlohmann::json calibrationToJson(const Calibration& c) {
    return {{"device", c.device}, {"measured_at", c.measuredAt}, {"copy_gbs", c.copyGBs}, {"compute_tflops", c.computeTflops},
            {"gemm_size", c.gemmSize}};
}

Calibration calibrationFromJson(const nlohmann::json& j) {
    Calibration c;
    c.device = j.at("device");
    c.measuredAt = j.value("measured_at", "");
    c.copyGBs = j.at("copy_gbs");
    // Files written before the key was named for what it is, the measured compute ceiling.
    const char* key = j.contains("compute_tflops") ? "compute_tflops" : "gemm_tflops";
    c.computeTflops = j.at(key).get<std::map<std::string, double>>();
    c.gemmSize = j.value("gemm_size", 0);
    return c;
}

std::optional<Calibration> loadCalibration(const std::string& deviceName) {
    return readCalibration(calibrationPath(deviceName));
}

std::vector<Calibration> listCalibrations() {
    std::vector<Calibration> out;
    const fs::path folder = cacheRoot() / "calibration";
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        // saveCalibration's temporary files (".json.tmp-PID", util/output_file) are skipped here.
        if (!it->is_regular_file(ec) || it->path().extension() != ".json") continue;
        if (auto c = readCalibration(it->path())) out.push_back(std::move(*c));
    }
    std::sort(out.begin(), out.end(), [](const Calibration& a, const Calibration& b) {
        return a.device != b.device ? a.device < b.device : a.measuredAt < b.measuredAt;
    });
    return out;
}

RooflineCalibration rooflineCalibration(const Calibration& c) {
    RooflineCalibration r;
    r.copyGBs = c.copyGBs;
    for (const auto& [dtype, tflops] : c.computeTflops) {
        const std::string unit = unitForGemmDtype(dtype);
        if (unit.empty() || !(tflops > 0)) continue;
        r.peakTflops[unit] = tflops;
    }
    return r;
}

void saveCalibration(const Calibration& c) {
    const fs::path path = calibrationPath(c.device);
    fs::create_directories(path.parent_path());
    const nlohmann::json j = calibrationToJson(c);
    // Written to a temporary file and renamed; OutputError when the disk is full or the folder
    // is not writable, so `kx calibrate` never says it saved what it did not.
    writeOutputFile(path, j.dump(2) + "\n");
}

}  // namespace kx::engine
