#include "baselines/baseline.hpp"

#include "baselines/baseline_factories.hpp"

#include <map>

namespace kx::runner {

namespace {

// Baselines built from CUB, and the unfused sequences' kernels, need nvcc; a runner built
// without it names them and says why not.
[[maybe_unused]] std::unique_ptr<BaselineInstance> withoutNvcc(DeviceContext&, const nlohmann::json&, const BaselineBuffers&) {
    throw RunnerError("this kx-runner was built without nvcc, so without CUB and the unfused-sequence baselines", false);
}
#ifdef KX_HAVE_CUB
#define KX_CUB(factory) factory
#else
#define KX_CUB(factory) withoutNvcc
#endif

// The baselines by name, grouped by where their work comes from.
const std::map<std::string, BaselineFactory>& table() {
    static const std::map<std::string, BaselineFactory> t = {
        // The device's copy and the vendor libraries.
        {"copy", makeCopy}, {"cublas_gemm", makeCublasGemm}, {"cublaslt_gemm", makeCublasLtGemm}, {"cudnn_conv", makeCudnnConv},
        {"cudnn_attention", makeCudnnAttention},
        // CUB's algorithms, the data-parallel templates' baselines.
        {"cub_reduce", KX_CUB(makeCubReduce)}, {"cub_scan", KX_CUB(makeCubScan)}, {"cub_select", KX_CUB(makeCubSelect)},
        {"cub_histogram", KX_CUB(makeCubHistogram)}, {"cub_radix_sort", KX_CUB(makeCubRadixSort)},
        {"cub_reduce_by_key", KX_CUB(makeCubReduceByKey)}, {"cub_sort_join", KX_CUB(makeCubSortJoin)},
        // The fused templates' unfused sequences.
        {"unfused_rowwise", KX_CUB(makeUnfusedRowwise)}, {"unfused_glu", KX_CUB(makeUnfusedGlu)},
        {"unfused_norm_rope", KX_CUB(makeUnfusedNormRope)}, {"unfused_ln_linear", KX_CUB(makeUnfusedLnLinear)},
        {"attention_composed", KX_CUB(makeAttentionComposed)},
    };
    return t;
}

}  // namespace

const BaselineFactory* findBaseline(const std::string& name) {
    const auto it = table().find(name);
    return it == table().end() ? nullptr : &it->second;
}

std::vector<std::string> baselineNames() {
    std::vector<std::string> names;
    for (const auto& [name, factory] : table()) names.push_back(name);
    return names;
}

std::string paramText(const nlohmann::json& params, const char* key, const std::string& baseline) {
    const auto it = params.find(key);
    if (it == params.end() || !it->is_string()) throw RunnerError("baseline '" + baseline + "' needs the text parameter '" + key + "'", false);
    return it->get<std::string>();
}

int paramChoice(const nlohmann::json& params, const char* key, std::initializer_list<const char*> choices, const std::string& baseline) {
    const std::string value = paramText(params, key, baseline);
    std::string list;
    int index = 0;
    for (const char* choice : choices) {
        if (value == choice) return index;
        list += index == 0 ? "" : index + 1 == static_cast<int>(choices.size()) ? " or " : ", ";
        list += choice;
        ++index;
    }
    throw RunnerError(baseline + ": " + key + " '" + value + "' is not " + list, false);
}

long long paramInt(const nlohmann::json& params, const char* key, const std::string& baseline) {
    const auto it = params.find(key);
    if (it == params.end() || !it->is_number()) throw RunnerError("baseline '" + baseline + "' needs the number parameter '" + key + "'", false);
    return it->is_number_integer() ? it->get<long long>() : static_cast<long long>(it->get<double>());
}

double paramNumber(const nlohmann::json& params, const char* key, const std::string& baseline) {
    const auto it = params.find(key);
    if (it == params.end() || !it->is_number()) throw RunnerError("baseline '" + baseline + "' needs the number parameter '" + key + "'", false);
    return it->get<double>();
}

const BaselineArg& bufferAt(const BaselineBuffers& buffers, std::size_t index, const std::string& baseline) {
    if (index >= buffers.args.size())
        throw RunnerError("baseline '" + baseline + "' needs " + std::to_string(index + 1) + " argument buffer" + (index ? "s" : "") +
                              " (args=\"...\" in the manifest)", false);
    return buffers.args[index];
}

const BaselineArg& bufferAt(const BaselineBuffers& buffers, std::size_t index, std::size_t bytes, const std::string& what,
                            const std::string& baseline) {
    const BaselineArg& arg = bufferAt(buffers, index, baseline);
    if (arg.bytes < bytes)
        throw RunnerError(baseline + ": buffer '" + arg.name + "' holds " + std::to_string(arg.bytes) + " bytes; " + what + " need " +
                              std::to_string(bytes), false);
    return arg;
}

CUdeviceptr outputOrOwn(DeviceContext& ctx, const BaselineBuffers& buffers, std::size_t bytes, const std::string& baseline,
                        std::unique_ptr<DeviceBuffer>& own) {
    if (buffers.output != 0) {
        if (buffers.outputBytes < bytes)
            throw RunnerError(baseline + ": the output buffer holds " + std::to_string(buffers.outputBytes) + " bytes; the result needs " +
                                  std::to_string(bytes), false);
        return buffers.output;
    }
    own = std::make_unique<DeviceBuffer>(ctx, bytes);
    return own->ptr;
}

DeviceBuffer::DeviceBuffer(DeviceContext& ctx, std::size_t bytes) : d(ctx.driver()) {
    ctx.check(d.cuMemAlloc(&ptr, bytes == 0 ? 1 : bytes), "allocating " + std::to_string(bytes) + " bytes");
}

DeviceBuffer::~DeviceBuffer() {
    if (ptr) d.cuMemFree(ptr);
}

}  // namespace kx::runner
