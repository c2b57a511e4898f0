#include "occupancy_query.hpp"

#include <fstream>
#include <sstream>

namespace kx::runner {

nlohmann::json occupancyQuery(DeviceContext& ctx, const nlohmann::json& req) {
    const CudaDriver& d = ctx.driver();
    std::ifstream in(req.at("module").get<std::string>(), std::ios::binary);
    if (!in) throw RunnerError("cannot read the module", false);
    std::stringstream image;
    image << in.rdbuf();
    const std::string bytes = image.str();
    CUmodule module;
    ctx.check(d.cuModuleLoadData(&module, bytes.c_str()), "loading the module");
    CUfunction fn;
    const std::string kernel = req.at("kernel");
    ctx.check(d.cuModuleGetFunction(&fn, module, kernel.c_str()), "finding kernel '" + kernel + "'");
    int regs = 0, staticSmem = 0, maxThreads = 0;
    d.cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
    d.cuFuncGetAttribute(&staticSmem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn);
    d.cuFuncGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn);

    nlohmann::json blocks = nlohmann::json::array();
    for (const auto& p : req.at("points")) {
        const int block = p.at(0), dyn = p.at(1), carveout = p.at(2);
        // As a launch would: allow the dynamic size, state the carveout preference.
        int n = -1;
        if (d.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dyn) == CUDA_SUCCESS &&
            d.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, carveout) == CUDA_SUCCESS) {
            if (d.cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, fn, block, static_cast<size_t>(dyn), 0) != CUDA_SUCCESS)
                n = -1;
        }
        blocks.push_back(n);
    }
    d.cuModuleUnload(module);
    return {{"ok", true}, {"registers", regs}, {"static_smem", staticSmem}, {"max_threads_per_block", maxThreads},
            {"blocks_per_sm", blocks}};
}

}  // namespace kx::runner
