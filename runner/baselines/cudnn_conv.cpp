// "cudnn_conv": cuDNN's grouped convolution on the kernel's own A and B (args="A,B"), same
// direction, layout and dtype as templates/conv, fp32 accumulation; D goes to the output buffer
// when the manifest asks (output="D"), so the reference can compare every output with it.
// Params: direction (fwd, bwd_data, bwd_weight), layout (nhwgc, nchw), dtype (f16, bf16, f32),
// N G C K Di Hi Wi Z Y X stride_d stride_h stride_w pad_d pad_h pad_w dil_d dil_h dil_w.
//
// cuDNN is not linked: it is dlopened on first use (cudnn_library.hpp), so kx-runner starts and
// runs everything else without it. The legacy descriptor API (still in cuDNN 9) describes the
// problem and cudnnFind*Algorithm picks the fastest algorithm by cuDNN's own measurement. When
// cuDNN cannot be loaded or refuses the problem, the im2col + cuBLAS sequence of
// cudnn_conv_fallback.cu runs instead (nvcc builds only); the label says which ran and why.
//
// [SECTION] Parameters
// [SECTION] The cuDNN baseline
// [SECTION] The factory
#include "baselines/cudnn_conv.hpp"

#include "baselines/baseline_factories.hpp"
#include "baselines/cudnn_library.hpp"
#include "timing.hpp"

#include <algorithm>
#include <climits>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace kx::runner {

namespace {

const std::string kName = "cudnn_conv";

// [SECTION] Parameters

ConvDirection parseDirection(const std::string& text) {
    if (text == "fwd") return ConvDirection::Forward;
    if (text == "bwd_data") return ConvDirection::BackwardData;
    if (text == "bwd_weight") return ConvDirection::BackwardWeight;
    throw RunnerError(kName + ": direction must be fwd, bwd_data or bwd_weight (got '" + text + "')", false);
}

// params[key], which must lie in [minimum, INT_MAX]: cuDNN's and cuBLAS's sizes are ints.
long long sizeParam(const nlohmann::json& params, const std::string& key, long long minimum) {
    const long long value = paramInt(params, key.c_str(), kName);
    if (value < minimum || value > INT_MAX)
        throw RunnerError(kName + ": " + key + " = " + std::to_string(value) + " must lie in [" + std::to_string(minimum) + ", " +
                              std::to_string(INT_MAX) + "]", false);
    return value;
}

// floor((in + 2*pad - dil*(filter-1) - 1) / stride) + 1, or an error naming the dimension.
long long outputSize(const ConvShape& s, int dim) {
    static const char* const kOut[3] = {"Do", "Ho", "Wo"};
    const long long span = s.in[dim] + 2 * s.pad[dim] - s.dil[dim] * (s.filter[dim] - 1) - 1;
    if (span < 0)  // floor division of a negative span gives an output size below 1
        throw RunnerError(kName + ": output size " + kOut[dim] + " = floor((" + std::to_string(span) + ") / stride) + 1 is below 1: the " +
                              "dilated filter is larger than the padded input", false);
    return span / s.stride[dim] + 1;
}

ConvShape parseShape(const nlohmann::json& params) {
    static const char* const kIn[3] = {"Di", "Hi", "Wi"};
    static const char* const kFilter[3] = {"Z", "Y", "X"};
    static const char* const kAxis[3] = {"d", "h", "w"};
    ConvShape s;
    s.batch = sizeParam(params, "N", 1), s.groups = sizeParam(params, "G", 1);
    s.inChannels = sizeParam(params, "C", 1), s.outChannels = sizeParam(params, "K", 1);
    for (int dim = 0; dim < 3; ++dim) {
        s.in[dim] = sizeParam(params, kIn[dim], 1);
        s.filter[dim] = sizeParam(params, kFilter[dim], 1);
        s.stride[dim] = sizeParam(params, std::string("stride_") + kAxis[dim], 1);
        s.pad[dim] = sizeParam(params, std::string("pad_") + kAxis[dim], 0);
        s.dil[dim] = sizeParam(params, std::string("dil_") + kAxis[dim], 1);
    }
    for (int dim = 0; dim < 3; ++dim) s.out[dim] = outputSize(s, dim);
    return s;
}

ConvProblem parseProblem(const nlohmann::json& params) {
    ConvProblem problem;
    problem.direction = parseDirection(paramText(params, "direction", kName));
    problem.dtype = paramText(params, "dtype", kName);
    if (problem.dtype != "f16" && problem.dtype != "bf16" && problem.dtype != "f32")
        throw RunnerError(kName + ": dtype must be f16, bf16 or f32 (got '" + problem.dtype + "')", false);
    const std::string layout = paramText(params, "layout", kName);
    if (layout != "nhwgc" && layout != "nchw") throw RunnerError(kName + ": layout must be nhwgc or nchw (got '" + layout + "')", false);
    problem.shape = parseShape(params);
    problem.shape.channelsLast = layout == "nhwgc";
    return problem;
}

// The lent A and B, checked against the direction's tensor sizes, and the output D.
ConvOperands lendOperands(DeviceContext& ctx, const ConvProblem& problem, const BaselineBuffers& buffers) {
    const ConvShape& s = problem.shape;
    const std::size_t elem = convElementBytes(problem.dtype);
    auto bytes = [&](long long elements, const char* tensor) {
        return std::pair<std::size_t, std::string>(static_cast<std::size_t>(elements) * elem,
                                                   std::to_string(elements) + " " + problem.dtype + " elements (" + tensor + ")");
    };
    std::pair<std::size_t, std::string> a, b;
    std::size_t d = 0;
    switch (problem.direction) {
    case ConvDirection::Forward: a = bytes(inputElements(s), "x"), b = bytes(filterElements(s), "w"), d = outputElements(s) * elem; break;
    case ConvDirection::BackwardData: a = bytes(outputElements(s), "dy"), b = bytes(filterElements(s), "w"), d = inputElements(s) * elem; break;
    case ConvDirection::BackwardWeight: a = bytes(outputElements(s), "dy"), b = bytes(inputElements(s), "x"), d = filterElements(s) * elem; break;
    }
    ConvOperands operands;
    operands.a = bufferAt(buffers, 0, a.first, a.second, kName).ptr;
    operands.b = bufferAt(buffers, 1, b.first, b.second, kName).ptr;
    std::unique_ptr<DeviceBuffer> own;
    operands.d = outputOrOwn(ctx, buffers, d, kName, own);
    operands.ownOutput = std::move(own);
    return operands;
}

}  // namespace

std::string describeConv(const ConvProblem& problem) {
    static const char* const kDirection[3] = {"fwd", "bwd_data", "bwd_weight"};
    return std::string(kDirection[static_cast<int>(problem.direction)]) + " " + problem.dtype + " " +
           (problem.shape.channelsLast ? "NHWGC" : "NCHW");
}

#if KX_HAVE_CUDNN_HEADER

namespace {

// [SECTION] The cuDNN baseline

// The handle and descriptors, destroyed even when the constructor stops half-way.
struct CudnnObjects {
    const CudnnApi& api;
    cudnnHandle_t handle = nullptr;
    cudnnTensorDescriptor_t input = nullptr;   // x or dx
    cudnnTensorDescriptor_t output = nullptr;  // y or dy
    cudnnFilterDescriptor_t filter = nullptr;  // w or dw
    cudnnConvolutionDescriptor_t conv = nullptr;

    explicit CudnnObjects(const CudnnApi& a) : api(a) {}
    ~CudnnObjects() {
        if (conv) api.cudnnDestroyConvolutionDescriptor(conv);
        if (filter) api.cudnnDestroyFilterDescriptor(filter);
        if (output) api.cudnnDestroyTensorDescriptor(output);
        if (input) api.cudnnDestroyTensorDescriptor(input);
        if (handle) api.cudnnDestroy(handle);
    }
    CudnnObjects(const CudnnObjects&) = delete;
    CudnnObjects& operator=(const CudnnObjects&) = delete;
};

cudnnDataType_t cudnnType(const std::string& dtype) {
    if (dtype == "f16") return CUDNN_DATA_HALF;
    if (dtype == "bf16") return CUDNN_DATA_BFLOAT16;
    return CUDNN_DATA_FLOAT;
}

// 2-D and 1-D convolutions (depth 1 in and out) get 4-D descriptors, cuDNN's most complete set
// of kernels; the others 5-D. Returns the first spatial dimension described (1: skip depth).
int firstSpatialDim(const ConvShape& s) { return s.in[0] == 1 && s.filter[0] == 1 && s.pad[0] == 0 ? 1 : 0; }

int toInt(long long value, const char* what) {
    if (value > INT_MAX) throw CudnnRefused(std::string(what) + " = " + std::to_string(value) + " exceeds cuDNN's int");
    return static_cast<int>(value);
}

// Find's results come sorted by time, failures included: the ones that ran, fastest first (all
// of them: Find's ranking of the fast ones was seen to change between processes).
constexpr int kCandidates = 16;
template <class Perf>
std::vector<Perf> successfulCandidates(const Perf* perf, int count, const CudnnApi& api) {
    std::vector<Perf> ran;
    for (int i = 0; i < count && static_cast<int>(ran.size()) < kCandidates; ++i)
        if (perf[i].status == CUDNN_STATUS_SUCCESS) ran.push_back(perf[i]);
    if (ran.empty())
        throw CudnnRefused(count > 0 ? std::string("no algorithm runs this problem (first result: ") + api.cudnnGetErrorString(perf[0].status) + ")"
                                     : std::string("no algorithm runs this problem"));
    return ran;
}

class CudnnConv : public BaselineInstance {
public:
    // Throws CudnnRefused when cuDNN refuses the problem, RunnerError when the workspace cannot
    // be allocated.
    CudnnConv(DeviceContext& ctx, const CudnnApi& api, const ConvProblem& problem, const ConvOperands& operands)
        : m_ctx(ctx), m_api(api), m_problem(problem), m_operands(operands), m_objects(api) {
        require(m_api.cudnnCreate(&m_objects.handle), "cudnnCreate");
        describeTensors();
        describeConvolution();
        chooseAlgorithm();
    }

    std::string label() const override {
        return "cuDNN " + cudnnVersionText(m_api) + " conv " + describeConv(m_problem) + " (algo " + m_algoName + ")";
    }

    // alpha 1, beta 0: D is overwritten. The caller synchronises, and reports a fault as fatal.
    void run() override {
        const cudnnStatus_t status = convolve();
        if (status != CUDNN_STATUS_SUCCESS) throw RunnerError(label() + " failed: " + m_api.cudnnGetErrorString(status), false);
    }

private:
    void require(cudnnStatus_t status, const char* call) const {
        if (status != CUDNN_STATUS_SUCCESS) throw CudnnRefused(std::string(call) + ": " + m_api.cudnnGetErrorString(status));
    }
    void describeTensors();
    void describeConvolution();
    void chooseAlgorithm();
    template <class Perf>
    void adopt(const Perf& candidate);
    template <class Perf>
    void pickFastest(const std::vector<Perf>& candidates, const char* const* names, std::size_t nameCount);
    cudnnStatus_t convolve();

    DeviceContext& m_ctx;
    const CudnnApi& m_api;
    ConvProblem m_problem;
    ConvOperands m_operands;
    CudnnObjects m_objects;
    int m_algo = 0;  // a cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t, by direction
    std::string m_algoName;
    std::size_t m_workspaceBytes = 0;
    std::unique_ptr<DeviceBuffer> m_workspace;
};

// cuDNN's dims are always N, C, [D,] H, W for tensors and K, C, [Z,] Y, X for filters, with all
// G groups' channels together (G*C, G*K); the format says how they lie in memory. NHWC is
// nhwgc's x[n][d][h][w][g*C + c] and w[g*K + k][z][y][x][c]; NCHW is nchw's.
void CudnnConv::describeTensors() {
    const ConvShape& s = m_problem.shape;
    const cudnnDataType_t type = cudnnType(m_problem.dtype);
    const cudnnTensorFormat_t format = s.channelsLast ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    std::vector<int> inDims = {toInt(s.batch, "N"), toInt(s.groups * s.inChannels, "G*C")};
    std::vector<int> outDims = {toInt(s.batch, "N"), toInt(s.groups * s.outChannels, "G*K")};
    std::vector<int> filterDims = {toInt(s.groups * s.outChannels, "G*K"), toInt(s.inChannels, "C")};
    for (int dim = firstSpatialDim(s); dim < 3; ++dim) {
        inDims.push_back(static_cast<int>(s.in[dim]));
        outDims.push_back(static_cast<int>(s.out[dim]));
        filterDims.push_back(static_cast<int>(s.filter[dim]));
    }
    const int rank = static_cast<int>(inDims.size());
    require(m_api.cudnnCreateTensorDescriptor(&m_objects.input), "cudnnCreateTensorDescriptor");
    require(m_api.cudnnSetTensorNdDescriptorEx(m_objects.input, format, type, rank, inDims.data()), "cudnnSetTensorNdDescriptorEx (x)");
    require(m_api.cudnnCreateTensorDescriptor(&m_objects.output), "cudnnCreateTensorDescriptor");
    require(m_api.cudnnSetTensorNdDescriptorEx(m_objects.output, format, type, rank, outDims.data()), "cudnnSetTensorNdDescriptorEx (y)");
    require(m_api.cudnnCreateFilterDescriptor(&m_objects.filter), "cudnnCreateFilterDescriptor");
    require(m_api.cudnnSetFilterNdDescriptor(m_objects.filter, type, format, rank, filterDims.data()), "cudnnSetFilterNdDescriptor (w)");
}

// Cross-correlation (no filter flip), as the template computes; fp32 accumulation; Tensor Cores
// allowed for f16 and bf16 (the template uses them). f32 gets cuDNN's default math, which lets
// Ampere and later GPUs use TF32 (CUDNN_FMA_MATH would forbid it).
void CudnnConv::describeConvolution() {
    const ConvShape& s = m_problem.shape;
    std::vector<int> pad, stride, dil;
    for (int dim = firstSpatialDim(s); dim < 3; ++dim) {
        pad.push_back(static_cast<int>(s.pad[dim]));
        stride.push_back(static_cast<int>(s.stride[dim]));
        dil.push_back(static_cast<int>(s.dil[dim]));
    }
    require(m_api.cudnnCreateConvolutionDescriptor(&m_objects.conv), "cudnnCreateConvolutionDescriptor");
    require(m_api.cudnnSetConvolutionNdDescriptor(m_objects.conv, static_cast<int>(pad.size()), pad.data(), stride.data(), dil.data(),
                                                  CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
            "cudnnSetConvolutionNdDescriptor");
    require(m_api.cudnnSetConvolutionGroupCount(m_objects.conv, static_cast<int>(s.groups)), "cudnnSetConvolutionGroupCount");
    require(m_api.cudnnSetConvolutionMathType(m_objects.conv, m_problem.dtype == "f32" ? CUDNN_DEFAULT_MATH : CUDNN_TENSOR_OP_MATH),
            "cudnnSetConvolutionMathType");
}

// Runs an algorithm as Find measured it: its workspace and its math type (Find may time an
// algorithm under another math type than the descriptor's).
template <class Perf>
void CudnnConv::adopt(const Perf& candidate) {
    m_algo = static_cast<int>(candidate.algo);
    m_workspaceBytes = candidate.memory;
    require(m_api.cudnnSetConvolutionMathType(m_objects.conv, candidate.mathType), "cudnnSetConvolutionMathType");
    m_workspace = std::make_unique<DeviceBuffer>(m_ctx, std::max<std::size_t>(m_workspaceBytes, 1));
}

// Find times each algorithm once, on buffers of its own, and its order changes from run to run
// (the same layer's pick was seen to take 0.05 ms in one process and 0.46 ms in the next). So
// every algorithm that ran is timed again here, on the run's own buffers, by the runner's timing
// loop, and the fastest is the baseline.
template <class Perf>
void CudnnConv::pickFastest(const std::vector<Perf>& candidates, const char* const* names, std::size_t nameCount) {
    double bestMs = -1;
    std::size_t best = 0;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        adopt(candidates[i]);
        if (convolve() != CUDNN_STATUS_SUCCESS) continue;  // Find ran it on other buffers; this run's refuse it
        const nlohmann::json t = timeCalls(m_ctx, 2, 9, [](int) {}, [&](int) { run(); });
        const double ms = t.at("median_ms").get<double>();
        if (bestMs < 0 || ms < bestMs) bestMs = ms, best = i;
    }
    if (bestMs < 0) throw CudnnRefused("none of the algorithms Find timed runs on this run's buffers");
    adopt(candidates[best]);
    m_algoName = m_algo >= 0 && static_cast<std::size_t>(m_algo) < nameCount ? names[m_algo] : "#" + std::to_string(m_algo);
}

// cuDNN's own benchmark of every algorithm on this problem, then ours of each one that ran.
void CudnnConv::chooseAlgorithm() {
    static const char* const kForward[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
                                           "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
    static const char* const kBackwardData[] = {"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
    static const char* const kBackwardFilter[] = {"ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};
    const CudnnObjects& o = m_objects;
    int count = 0;
    if (m_problem.direction == ConvDirection::Forward) {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        require(m_api.cudnnFindConvolutionForwardAlgorithm(o.handle, o.input, o.filter, o.conv, o.output, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                           &count, perf),
                "cudnnFindConvolutionForwardAlgorithm");
        pickFastest(successfulCandidates(perf, count, m_api), kForward, std::size(kForward));
    } else if (m_problem.direction == ConvDirection::BackwardData) {
        cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        require(m_api.cudnnFindConvolutionBackwardDataAlgorithm(o.handle, o.filter, o.output, o.conv, o.input,
                                                                CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count, perf),
                "cudnnFindConvolutionBackwardDataAlgorithm");
        pickFastest(successfulCandidates(perf, count, m_api), kBackwardData, std::size(kBackwardData));
    } else {
        cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        require(m_api.cudnnFindConvolutionBackwardFilterAlgorithm(o.handle, o.input, o.output, o.conv, o.filter,
                                                                  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &count, perf),
                "cudnnFindConvolutionBackwardFilterAlgorithm");
        pickFastest(successfulCandidates(perf, count, m_api), kBackwardFilter, std::size(kBackwardFilter));
    }
}

// Each direction's call, with A, B and D in the roles of ConvDirection.
cudnnStatus_t CudnnConv::convolve() {
    const float one = 1.0f, zero = 0.0f;
    const CudnnObjects& o = m_objects;
    const auto* a = reinterpret_cast<const void*>(lent(m_operands.a));
    const auto* b = reinterpret_cast<const void*>(lent(m_operands.b));
    auto* d = reinterpret_cast<void*>(lent(m_operands.d));
    void* workspace = reinterpret_cast<void*>(m_workspace->ptr);
    switch (m_problem.direction) {
    case ConvDirection::Forward:
        return m_api.cudnnConvolutionForward(o.handle, &one, o.input, a, o.filter, b, o.conv, static_cast<cudnnConvolutionFwdAlgo_t>(m_algo),
                                             workspace, m_workspaceBytes, &zero, o.output, d);
    case ConvDirection::BackwardData:
        return m_api.cudnnConvolutionBackwardData(o.handle, &one, o.filter, b, o.output, a, o.conv,
                                                  static_cast<cudnnConvolutionBwdDataAlgo_t>(m_algo), workspace, m_workspaceBytes, &zero,
                                                  o.input, d);
    case ConvDirection::BackwardWeight:
        return m_api.cudnnConvolutionBackwardFilter(o.handle, &one, o.input, b, o.output, a, o.conv,
                                                    static_cast<cudnnConvolutionBwdFilterAlgo_t>(m_algo), workspace, m_workspaceBytes, &zero,
                                                    o.filter, d);
    }
    return CUDNN_STATUS_BAD_PARAM;
}

}  // namespace

#endif  // KX_HAVE_CUDNN_HEADER

// [SECTION] The factory

namespace {

// The fallback when cuDNN did not take the problem; none in a runner built without nvcc.
std::unique_ptr<BaselineInstance> withoutCudnn(DeviceContext& ctx, const ConvProblem& problem, const ConvOperands& operands,
                                               const std::string& why) {
#ifdef KX_HAVE_CUB
    return makeIm2colConv(ctx, problem, operands, why);
#else
    (void)ctx, (void)problem, (void)operands;
    throw RunnerError(kName + ": " + why + "; and this kx-runner was built without nvcc, so it has no im2col + cuBLAS fallback", false);
#endif
}

}  // namespace

KX_BASELINE_FACTORY(makeCudnnConv) {
    const ConvProblem problem = parseProblem(params);
    const ConvOperands operands = lendOperands(ctx, problem, buffers);
#if KX_HAVE_CUDNN_HEADER
    const CudnnApi& api = cudnnApi();
    if (!api.error.empty()) return withoutCudnn(ctx, problem, operands, "cuDNN not found: " + api.error);
    try {
        return std::make_unique<CudnnConv>(ctx, api, problem, operands);
    } catch (const CudnnRefused& refused) {
        return withoutCudnn(ctx, problem, operands, std::string("cuDNN refused: ") + refused.what());
    }
#else
    return withoutCudnn(ctx, problem, operands, "cuDNN not found: this kx-runner was built without cudnn.h");
#endif
}

}  // namespace kx::runner
