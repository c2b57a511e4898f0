// Other templates of the same problem whose kernels run on units with a higher roof on a device:
// the SIMT GEMM's FP32 roof is 67 TFLOP/s on an H100, the FP16 tensor cores' that gemm_mma and
// gemm_wgmma use is 989.5. The Roofline panel and `kx roofline` name them, so that a user who
// sees a kernel far under the library's speed learns which path reaches higher.
#pragma once

#include "analysis/roofline.hpp"
#include "arch/arch_database.hpp"
#include "templates/template_library.hpp"

#include <map>
#include <string>
#include <vector>

namespace kx::engine {

struct HigherRoof {
    std::string templateId;
    std::string title;
    std::string arch;                           // where it builds: sm_90a for a wgmma template on an sm_90 device
    std::map<std::string, std::string> values;  // the current config's choices it shares (dtype, layout...)
    std::string unit;                           // "fp16_tensor"
    double peakFlops = 0;                       // the device's datasheet roof for that unit, FLOP/s
};

// The templates with the same reference as `current` (the same problem, checked by the same
// float64 reference) that take every value of the choices (enums, flags) they share with the
// current config (the same dtype and layout; a template with a dtype choice is not offered for
// one without, whose precision is fixed), whose config, with those laid over their defaults, is valid for this device's arch (or its arch-specific target) and names a compute
// unit whose datasheet roof on `model`'s device is at least 1.5 times the current one's. Highest
// roof first. A unit the device does not list counts as the CUDA cores' FP32, as everywhere.
std::vector<HigherRoof> higherRoofs(const TemplateLibrary& library, const ArchDatabase& arches, const Template& current,
                                    const Config& config, const Arch& arch, const RooflineModel& model);

}  // namespace kx::engine
