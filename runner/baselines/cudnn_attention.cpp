// "cudnn_attention": cuDNN's fused scaled-dot-product attention, forward, for inference (no
// softmax statistics out), on the kernel's own Q, K and V (args="Q,K,V"), the problem of
// attention_composed: params dtype (f16, bf16), batch, heads, kv_heads, seq_q, seq_k, head_dim,
// causal (0/1), scale. Q and O are [batch, heads, seq_q, head_dim], K and V [batch, kv_heads,
// seq_k, head_dim], head_dim contiguous; query head h reads K/V head h / (heads / kv_heads); the
// causal mask lets query i see keys j <= i + seq_k - seq_q (aligned at the bottom right). O goes
// to the output buffer when the manifest asks (output="O").
//
// cuDNN is dlopened (cudnn_library.hpp). Its fused attention engines are chosen by pattern: they
// take a backend operation graph only when it has the shape cuDNN's own frontend gives its SDPA
// node, so the graph below is that one, op for op:
//   S = Q x K^T                  matmul; K^T is a [b, kv_heads, d, seq_k] view of K (strides)
//   S = S * scale                pointwise MUL by a by-value fp32 scalar
//   causal only:                 row = GEN_INDEX(S, 2), col = GEN_INDEX(S, 3) (int32);
//                                row + seq_k - seq_q (int32 by-value scalars; just row when
//                                seq_q = seq_k) CMP_GE col; S = BINARY_SELECT(S, -inf, that)
//   softmax:                     M = max over keys, E = exp(S - M), L = sum of E, P = E / L
//                                (P in dtype, as the second product takes it); M + log(L), the
//                                statistics, go to a virtual tensor, as the frontend leaves them
//   O = P x V                    matmul
// Intermediates are virtual and fp32 (the index arithmetic int32, the mask boolean); matmuls,
// reductions and pointwise ops compute in fp32. Engines: heuristics mode A's list, then mode
// FALLBACK's; the first config whose plan finalizes and runs once is the baseline. When cuDNN
// cannot be loaded or refuses (a shape its engines lack, no engine, no plan), attention_composed's
// cuBLAS + softmax + cuBLAS runs instead (nvcc builds only), and the label quotes cuDNN's words.
//
// [SECTION] Parameters
// [SECTION] The operation graph
// [SECTION] The cuDNN baseline
// [SECTION] The factory
#include "baselines/baseline_factories.hpp"
#include "baselines/cudnn_library.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kx::runner {

namespace {

const std::string kName = "cudnn_attention";

// [SECTION] Parameters

struct AttentionProblem {
    std::string dtype;  // f16 or bf16
    std::int64_t batch = 0, heads = 0, kvHeads = 0, seqQ = 0, seqK = 0, headDim = 0;
    bool causal = false;
    float scale = 1;
};

std::int64_t sizeParam(const nlohmann::json& params, const char* key) {
    const long long value = paramInt(params, key, kName);
    if (value < 1 || value > std::numeric_limits<std::int32_t>::max())
        throw RunnerError(kName + ": " + key + " = " + std::to_string(value) + " must lie in [1, 2^31 - 1]", false);
    return value;
}

// Bad parameters are errors, not reasons to fall back: the composed baseline would refuse them too.
AttentionProblem parseProblem(const nlohmann::json& params) {
    AttentionProblem p;
    p.dtype = paramText(params, "dtype", kName);
    if (p.dtype != "f16" && p.dtype != "bf16") throw RunnerError(kName + ": dtype must be f16 or bf16 (got '" + p.dtype + "')", false);
    p.batch = sizeParam(params, "batch"), p.heads = sizeParam(params, "heads"), p.kvHeads = sizeParam(params, "kv_heads");
    p.seqQ = sizeParam(params, "seq_q"), p.seqK = sizeParam(params, "seq_k"), p.headDim = sizeParam(params, "head_dim");
    p.causal = paramInt(params, "causal", kName) != 0;
    p.scale = static_cast<float>(paramNumber(params, "scale", kName));
    if (p.heads % p.kvHeads != 0) throw RunnerError(kName + ": heads must be a multiple of kv_heads", false);
    return p;
}

}  // namespace

#if KX_HAVE_CUDNN_HEADER

namespace {

// Why cuDNN's fused attention cannot take this problem, before asking it: the limits cuDNN's
// frontend checks for fp16/bf16 attention forward (its support surface), which the backend does
// not always report as a refusal. Empty when none applies.
std::string unsupported(const AttentionProblem& p, std::size_t version, const DeviceInfo& device) {
    const std::string v = std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100);
    if (version == 91000 || version == 91001) return "cuDNN 9.10.0 and 9.10.1 have known bugs in fp16/bf16 attention forward";
    if (device.ccMajor < 8) return "fused attention needs sm_80 or later";
    if (p.headDim % 8 != 0) return "head_dim " + std::to_string(p.headDim) + " is not a multiple of 8";
    const std::string dim = "head_dim " + std::to_string(p.headDim);
    if (device.ccMajor == 8 && version <= 90900 && p.headDim > 128) return dim + " on sm_8x needs cuDNN 9.10 or later (this is " + v + ")";
    if (device.ccMajor == 9 && version <= 90900 && p.headDim > 256) return dim + " on sm_90 needs cuDNN 9.10 or later (this is " + v + ")";
    if (device.ccMajor == 10 && version < 90900 && p.headDim > 128) return dim + " on sm_100 needs cuDNN 9.9 or later (this is " + v + ")";
    if (!p.causal) return "";
    if (p.seqQ > p.seqK)
        return "its bottom-right causal mask needs seq_q <= seq_k (here " + std::to_string(p.seqQ) + " > " + std::to_string(p.seqK) +
               "): the first queries would see no key";
    if (version < 90600 && p.seqQ != p.seqK && (p.seqQ % 64 != 0 || p.seqK % 64 != 0))
        return "before cuDNN 9.6 (this is " + v + ") its bottom-right causal mask needs seq_q and seq_k to be multiples of 64";
    if (p.seqQ == 1 && version <= 90900) return "a causal mask with seq_q = 1 needs cuDNN 9.10 or later (this is " + v + ")";
    return "";
}

// [SECTION] The operation graph

using Dims = std::array<std::int64_t, 4>;

// The graph's non-virtual tensors, by unique id; virtual ones are numbered from kFirstVirtual.
enum : std::int64_t { kUidQ = 1, kUidK, kUidV, kUidO, kUidScale, kUidSeqQ, kUidSeqK, kUidNegInf, kFirstVirtual = 100 };

// Tensors and operations of one backend operation graph, kept alive as long as the plan built
// from it. Each call describes one tensor or operation the way cuDNN's frontend lowers it:
// 16-byte alignment, rank 4, by-value scalars of rank 4 with unit sizes, alpha1 = alpha2 = 1 on
// every pointwise op.
class GraphBuilder {
public:
    explicit GraphBuilder(const CudnnApi& api) : m_api(api) {}

    // A tensor; uid 0 makes a virtual one (never in memory) with the next free id.
    std::int64_t tensor(cudnnDataType_t type, const Dims& dims, const Dims& strides, std::int64_t uid = 0) {
        const bool isVirtual = uid == 0;
        if (isVirtual) uid = m_nextVirtual++;
        return describeTensor(uid, type, dims, strides, isVirtual, false);
    }
    // A scalar passed by value in the variant pack (a host pointer at execution).
    std::int64_t scalar(std::int64_t uid, cudnnDataType_t type) { return describeTensor(uid, type, {1, 1, 1, 1}, {1, 1, 1, 1}, false, true); }

    // y = mode(x[, b[, t]]); GEN_INDEX numbers elements along `axis`. -1: no such input.
    void pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t compute, std::int64_t x, std::int64_t b, std::int64_t t, std::int64_t y,
                   std::int64_t axis = -1);
    void matmul(std::int64_t a, std::int64_t b, std::int64_t c);
    // y holds x reduced over the dimensions where y's size is 1.
    void reduction(cudnnReduceTensorOp_t op, std::int64_t x, std::int64_t y, std::size_t version);
    // The finalized operation graph of every operation described so far, kept here too.
    const CudnnDescriptor& finish(cudnnHandle_t handle);

private:
    std::int64_t describeTensor(std::int64_t uid, cudnnDataType_t type, const Dims& dims, const Dims& strides, bool isVirtual, bool byValue);
    const CudnnDescriptor& at(std::int64_t uid) const { return m_tensors.at(uid); }

    const CudnnApi& m_api;
    std::int64_t m_nextVirtual = kFirstVirtual;
    std::map<std::int64_t, CudnnDescriptor> m_tensors;
    std::vector<CudnnDescriptor> m_operations;
    std::vector<CudnnDescriptor> m_parts;  // the pointwise, matmul and reduction descriptors the operations name
    std::optional<CudnnDescriptor> m_operationGraph;
};

std::int64_t GraphBuilder::describeTensor(std::int64_t uid, cudnnDataType_t type, const Dims& dims, const Dims& strides, bool isVirtual,
                                          bool byValue) {
    const std::int64_t alignment = 16;
    CudnnDescriptor t(m_api, CUDNN_BACKEND_TENSOR_DESCRIPTOR, "tensor " + std::to_string(uid));
    t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &type)
        .set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims.data(), 4)
        .set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides.data(), 4)
        .set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid)
        .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &alignment);
    if (isVirtual) t.set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, &isVirtual);
    if (byValue) t.set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, &byValue);
    t.finalize();
    m_tensors.emplace(uid, std::move(t));
    return uid;
}

void GraphBuilder::pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t compute, std::int64_t x, std::int64_t b, std::int64_t t,
                             std::int64_t y, std::int64_t axis) {
    CudnnDescriptor desc(m_api, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, "pointwise mode " + std::to_string(mode));
    desc.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, &mode).set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, &compute);
    if (mode == CUDNN_POINTWISE_GEN_INDEX) desc.set(CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, &axis);
    desc.finalize();
    const float one = 1.0f;
    CudnnDescriptor op(m_api, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, "the pointwise operation of mode " + std::to_string(mode));
    op.set(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, desc).set(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, at(x));
    if (b >= 0) op.set(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, at(b));
    if (t >= 0) op.set(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, at(t));
    op.set(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, at(y))
        .set(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, CUDNN_TYPE_FLOAT, &one)
        .set(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, CUDNN_TYPE_FLOAT, &one)
        .finalize();
    m_parts.push_back(std::move(desc));
    m_operations.push_back(std::move(op));
}

void GraphBuilder::matmul(std::int64_t a, std::int64_t b, std::int64_t c) {
    const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    CudnnDescriptor desc(m_api, CUDNN_BACKEND_MATMUL_DESCRIPTOR, "a matmul");
    desc.set(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute).finalize();
    CudnnDescriptor op(m_api, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, "the matmul of tensors " + std::to_string(a) + " and " + std::to_string(b));
    op.set(CUDNN_ATTR_OPERATION_MATMUL_ADESC, at(a))
        .set(CUDNN_ATTR_OPERATION_MATMUL_BDESC, at(b))
        .set(CUDNN_ATTR_OPERATION_MATMUL_CDESC, at(c))
        .set(CUDNN_ATTR_OPERATION_MATMUL_DESC, desc)
        .finalize();
    m_parts.push_back(std::move(desc));
    m_operations.push_back(std::move(op));
}

void GraphBuilder::reduction(cudnnReduceTensorOp_t op, std::int64_t x, std::int64_t y, std::size_t version) {
    const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    CudnnDescriptor desc(m_api, CUDNN_BACKEND_REDUCTION_DESCRIPTOR, "a reduction");
    desc.set(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute)
        .set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, &op);
#if CUDNN_VERSION >= 91100
    const bool deterministic = false;  // an attribute since cuDNN 9.11, set by the frontend from then on
    if (version >= 91100) desc.set(CUDNN_ATTR_REDUCTION_IS_DETERMINISTIC, CUDNN_TYPE_BOOLEAN, &deterministic);
#else
    (void)version;
#endif
    desc.finalize();
    CudnnDescriptor operation(m_api, CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, "the reduction of tensor " + std::to_string(x));
    operation.set(CUDNN_ATTR_OPERATION_REDUCTION_DESC, desc)
        .set(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, at(x))
        .set(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, at(y))
        .finalize();
    m_parts.push_back(std::move(desc));
    m_operations.push_back(std::move(operation));
}

// CUDNN_ATTR_OPERATIONGRAPH_HANDLE, deprecated in cuDNN 9.8 (which no longer needs it) and
// required before; named by value so that the build stays free of deprecation warnings.
constexpr auto kOperationGraphHandle = static_cast<cudnnBackendAttributeName_t>(800);

const CudnnDescriptor& GraphBuilder::finish(cudnnHandle_t handle) {
    std::vector<cudnnBackendDescriptor_t> ops;
    for (const CudnnDescriptor& op : m_operations) ops.push_back(op.get());
    CudnnDescriptor graph(m_api, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, "the operation graph");
    graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, ops.data(), static_cast<std::int64_t>(ops.size()))
        .set(kOperationGraphHandle, CUDNN_TYPE_HANDLE, &handle)
        .finalize();
    return m_operationGraph.emplace(std::move(graph));
}

// The causal mask on the scores s: keep (i, j) where i + seq_k - seq_q >= j, else -inf. The
// frontend's composite diagonal band mask with a right bound of 0: aligned at the bottom right,
// or, when seq_q = seq_k and both alignments are the same mask, at the top left (no offset),
// the form older cuDNN versions take at any length.
std::int64_t maskAboveDiagonal(GraphBuilder& g, std::int64_t s, const Dims& dims, const Dims& strides, bool bottomRight) {
    const auto scores = [&](cudnnDataType_t type) { return g.tensor(type, dims, strides); };
    const std::int64_t row = scores(CUDNN_DATA_INT32), col = scores(CUDNN_DATA_INT32);
    g.pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_FLOAT, s, -1, -1, row, 2);
    g.pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_FLOAT, s, -1, -1, col, 3);
    std::int64_t diagonal = row;
    if (bottomRight) {
        const std::int64_t rowPlusK = scores(CUDNN_DATA_INT32);
        diagonal = scores(CUDNN_DATA_INT32);
        g.pointwise(CUDNN_POINTWISE_ADD, CUDNN_DATA_INT32, row, g.scalar(kUidSeqK, CUDNN_DATA_INT32), -1, rowPlusK);
        g.pointwise(CUDNN_POINTWISE_SUB, CUDNN_DATA_INT32, rowPlusK, g.scalar(kUidSeqQ, CUDNN_DATA_INT32), -1, diagonal);
    }
    const std::int64_t keep = scores(CUDNN_DATA_BOOLEAN);
    g.pointwise(CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, diagonal, col, -1, keep);
    const std::int64_t masked = scores(CUDNN_DATA_FLOAT);
    g.pointwise(CUDNN_POINTWISE_BINARY_SELECT, CUDNN_DATA_FLOAT, s, g.scalar(kUidNegInf, CUDNN_DATA_FLOAT), keep, masked);
    return masked;
}

// The whole forward graph (see the top of the file); Q, K, V and O are dense [b, h, s, d].
void describeAttention(GraphBuilder& g, const AttentionProblem& p, std::size_t version) {
    const cudnnDataType_t io = p.dtype == "f16" ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16;
    const std::int64_t b = p.batch, hq = p.heads, hk = p.kvHeads, sq = p.seqQ, sk = p.seqK, d = p.headDim;
    const Dims scoreDims = {b, hq, sq, sk}, scoreStrides = {hq * sq * sk, sq * sk, sk, 1};
    const Dims rowDims = {b, hq, sq, 1}, rowStrides = {hq * sq, sq, 1, 1};
    const auto scores = [&](cudnnDataType_t type) { return g.tensor(type, scoreDims, scoreStrides); };
    const auto perRow = [&] { return g.tensor(CUDNN_DATA_FLOAT, rowDims, rowStrides); };
    const std::int64_t q = g.tensor(io, {b, hq, sq, d}, {hq * sq * d, sq * d, d, 1}, kUidQ);
    const std::int64_t kTransposed = g.tensor(io, {b, hk, d, sk}, {hk * sk * d, sk * d, 1, d}, kUidK);
    const std::int64_t v = g.tensor(io, {b, hk, sk, d}, {hk * sk * d, sk * d, d, 1}, kUidV);
    const std::int64_t o = g.tensor(io, {b, hq, sq, d}, {hq * sq * d, sq * d, d, 1}, kUidO);

    const std::int64_t products = scores(CUDNN_DATA_FLOAT);
    g.matmul(q, kTransposed, products);
    std::int64_t s = scores(CUDNN_DATA_FLOAT);
    g.pointwise(CUDNN_POINTWISE_MUL, CUDNN_DATA_FLOAT, products, g.scalar(kUidScale, CUDNN_DATA_FLOAT), -1, s);
    if (p.causal) s = maskAboveDiagonal(g, s, scoreDims, scoreStrides, p.seqQ != p.seqK);

    const std::int64_t max = perRow(), shifted = scores(CUDNN_DATA_FLOAT), exps = scores(CUDNN_DATA_FLOAT);
    g.reduction(CUDNN_REDUCE_TENSOR_MAX, s, max, version);
    g.pointwise(CUDNN_POINTWISE_SUB, CUDNN_DATA_FLOAT, s, max, -1, shifted);
    g.pointwise(CUDNN_POINTWISE_EXP, CUDNN_DATA_FLOAT, shifted, -1, -1, exps);
    const std::int64_t sum = perRow(), logSum = perRow(), stats = perRow();
    g.reduction(CUDNN_REDUCE_TENSOR_ADD, exps, sum, version);
    g.pointwise(CUDNN_POINTWISE_LOG, CUDNN_DATA_FLOAT, sum, -1, -1, logSum);
    g.pointwise(CUDNN_POINTWISE_ADD, CUDNN_DATA_FLOAT, max, logSum, -1, stats);
    const std::int64_t probs = scores(io);
    g.pointwise(CUDNN_POINTWISE_DIV, CUDNN_DATA_FLOAT, exps, sum, -1, probs);
    g.matmul(probs, v, o);
}

// [SECTION] The cuDNN baseline

// CUDNN_ATTR_EXECUTION_PLAN_HANDLE, deprecated in cuDNN 9.8 and required before it.
constexpr auto kExecutionPlanHandle = static_cast<cudnnBackendAttributeName_t>(400);

// The engine configs that heuristics `mode` recommends for the graph, best first. None when it
// has none or fails; *why then says so.
std::vector<CudnnDescriptor> recommendedConfigs(const CudnnApi& api, const CudnnDescriptor& graph, cudnnBackendHeurMode_t mode,
                                                const std::string& modeName, std::string* why) {
    std::vector<CudnnDescriptor> configs;
    try {
        CudnnDescriptor heuristics(api, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, "heuristics mode " + modeName);
        heuristics.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph).set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &mode).finalize();
        std::int64_t count = 0;
        cudnnStatus_t status =
            api.cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr);
        if (status != CUDNN_STATUS_SUCCESS) throw CudnnRefused(cudnnFailureText(api, status, "counting the results of heuristics mode " + modeName));
        std::vector<cudnnBackendDescriptor_t> raw;
        for (std::int64_t i = 0; i < count; ++i) {
            configs.emplace_back(api, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, "engine config " + std::to_string(i) + " of heuristics mode " + modeName);
            raw.push_back(configs.back().get());
        }
        std::int64_t returned = 0;
        status = api.cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &returned,
                                              raw.data());
        if (status != CUDNN_STATUS_SUCCESS) throw CudnnRefused(cudnnFailureText(api, status, "reading the results of heuristics mode " + modeName));
        configs.erase(configs.begin() + std::min(std::max<std::int64_t>(returned, 0), count), configs.end());
        if (const std::string message = cudnnLastErrorText(api); configs.empty())
            *why += "heuristics mode " + modeName + " recommends no engine" + (message.empty() ? "" : " (" + message + ")") + "; ";
    } catch (const CudnnRefused& refused) {
        configs.clear();
        *why += std::string(refused.what()) + "; ";
    }
    return configs;
}

// The engine's global index, for the label; -1 when cuDNN does not say.
std::int64_t engineIndex(const CudnnApi& api, const CudnnDescriptor& config) {
    try {
        CudnnDescriptor engine(api, CUDNN_BACKEND_ENGINE_DESCRIPTOR, "the engine");
        cudnnBackendDescriptor_t raw = engine.get();
        config.get(CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, &raw);
        std::int64_t index = -1;
        engine.get(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, &index);
        return index;
    } catch (const CudnnRefused&) {
        return -1;
    }
}

// The handle, destroyed last (it is the class's first member).
struct CudnnHandle {
    const CudnnApi& api;
    cudnnHandle_t handle = nullptr;
    explicit CudnnHandle(const CudnnApi& a) : api(a) {
        const cudnnStatus_t status = api.cudnnCreate(&handle);
        if (status != CUDNN_STATUS_SUCCESS) throw CudnnRefused(cudnnFailureText(api, status, "cudnnCreate"));
    }
    ~CudnnHandle() {
        if (handle) api.cudnnDestroy(handle);
    }
    CudnnHandle(const CudnnHandle&) = delete;
    CudnnHandle& operator=(const CudnnHandle&) = delete;
};

// Everything (graph, plan, workspace, variant pack) is set up by the constructor; run() only
// executes the plan.
class CudnnAttention : public BaselineInstance {
public:
    // Throws CudnnRefused when cuDNN refuses the graph, RunnerError when a lent buffer is too
    // small or memory runs out.
    CudnnAttention(DeviceContext& ctx, const CudnnApi& api, const AttentionProblem& problem, const BaselineBuffers& buffers);

    std::string label() const override {
        return "cuDNN fused attention " + std::string(m_problem.causal ? "causal " : "") + m_problem.dtype + " (cuDNN " + cudnnVersionText(m_api) +
               (m_engine >= 0 ? ", engine " + std::to_string(m_engine) : std::string()) + ")";
    }

    // Asynchronous on the default stream; the caller synchronises and reports a fault as fatal.
    void run() override {
        const cudnnStatus_t status = m_api.cudnnBackendExecute(m_handle.handle, m_plan->get(), m_variantPack->get());
        if (status != CUDNN_STATUS_SUCCESS) throw RunnerError(cudnnFailureText(m_api, status, label() + " failed"), false);
    }

private:
    // The variant pack holds the buffers' addresses: a new one for the set (untimed).
    void prepareSet(int) override {
        if (m_plan) m_variantPack.emplace(variantPack(m_workspace->ptr));
    }
    void choosePlan(DeviceContext& ctx, const CudnnDescriptor& graph);
    void adopt(DeviceContext& ctx, const CudnnDescriptor& config);
    CudnnDescriptor variantPack(CUdeviceptr workspace);

    CudnnHandle m_handle;
    const CudnnApi& m_api;
    AttentionProblem m_problem;
    GraphBuilder m_graph;
    std::vector<CudnnDescriptor> m_configs;  // the plan's engine config among them
    std::optional<CudnnDescriptor> m_plan, m_variantPack;  // set once a plan has run
    std::unique_ptr<DeviceBuffer> m_workspace, m_ownOutput;
    CUdeviceptr m_q = 0, m_k = 0, m_v = 0, m_o = 0;
    // The by-value scalars: the variant pack points at them, so they live as long as it does.
    float m_scale = 1, m_negInf = -INFINITY;
    std::int32_t m_seqQ = 0, m_seqK = 0;
    std::int64_t m_engine = -1;
};

CudnnAttention::CudnnAttention(DeviceContext& ctx, const CudnnApi& api, const AttentionProblem& problem, const BaselineBuffers& buffers)
    : m_handle(api), m_api(api), m_problem(problem), m_graph(api) {
    const AttentionProblem& p = problem;
    const std::size_t qBytes = static_cast<std::size_t>(p.batch * p.heads * p.seqQ * p.headDim) * 2;
    const std::size_t kvBytes = static_cast<std::size_t>(p.batch * p.kvHeads * p.seqK * p.headDim) * 2;
    m_q = bufferAt(buffers, 0, qBytes, "batch x heads x seq_q x head_dim elements", kName).ptr;
    m_k = bufferAt(buffers, 1, kvBytes, "batch x kv_heads x seq_k x head_dim elements", kName).ptr;
    m_v = bufferAt(buffers, 2, kvBytes, "batch x kv_heads x seq_k x head_dim elements", kName).ptr;
    m_o = outputOrOwn(ctx, buffers, qBytes, kName, m_ownOutput);
    m_scale = p.scale;
    m_seqQ = static_cast<std::int32_t>(p.seqQ), m_seqK = static_cast<std::int32_t>(p.seqK);
    // The masked scores' value: -inf, or the lowest finite float before cuDNN 9.10, which is what
    // cuDNN's frontend gives those versions.
    m_negInf = api.version < 91000 ? std::numeric_limits<float>::lowest() : -INFINITY;

    // The runner times the default stream; cudnnCreate's handle uses it too, but say so.
    const cudnnStatus_t status = api.cudnnSetStream(m_handle.handle, nullptr);
    if (status != CUDNN_STATUS_SUCCESS) throw CudnnRefused(cudnnFailureText(api, status, "cudnnSetStream"));
    describeAttention(m_graph, p, api.version);
    choosePlan(ctx, m_graph.finish(m_handle.handle));
}

// The frontend's choice: the configs of heuristics mode A, then those of mode FALLBACK, tried in
// that order until one builds a plan. Here the plan must also run once.
void CudnnAttention::choosePlan(DeviceContext& ctx, const CudnnDescriptor& graph) {
    std::string why;
    m_configs = recommendedConfigs(m_api, graph, CUDNN_HEUR_MODE_A, "A", &why);
    for (CudnnDescriptor& config : recommendedConfigs(m_api, graph, CUDNN_HEUR_MODE_FALLBACK, "FALLBACK", &why))
        m_configs.push_back(std::move(config));
    if (m_configs.empty()) throw CudnnRefused("no engine takes the attention graph: " + why.substr(0, why.size() - 2));
    std::string firstFailure;
    for (const CudnnDescriptor& config : m_configs) {
        try {
            adopt(ctx, config);
            m_engine = engineIndex(m_api, config);
            return;
        } catch (const CudnnRefused& refused) {
            if (firstFailure.empty()) firstFailure = refused.what();
        }
    }
    throw CudnnRefused("none of the " + std::to_string(m_configs.size()) +
                       " engine configs the heuristics recommend builds a plan that runs; the first: " + firstFailure);
}

// Builds the config's plan, its workspace and variant pack, and runs it once (its output is the
// run's to overwrite); keeps them when all of that succeeds.
void CudnnAttention::adopt(DeviceContext& ctx, const CudnnDescriptor& config) {
    CudnnDescriptor plan(m_api, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, "the execution plan of " + config.what());
    plan.set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config);
    if (m_api.version < 90800) plan.set(kExecutionPlanHandle, CUDNN_TYPE_HANDLE, &m_handle.handle);
    plan.finalize();
    std::int64_t workspaceBytes = 0;
    plan.get(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, &workspaceBytes);
    auto workspace = std::make_unique<DeviceBuffer>(ctx, static_cast<std::size_t>(std::max<std::int64_t>(workspaceBytes, 1)));
    CudnnDescriptor pack = variantPack(workspace->ptr);
    const cudnnStatus_t status = m_api.cudnnBackendExecute(m_handle.handle, plan.get(), pack.get());
    if (status != CUDNN_STATUS_SUCCESS) throw CudnnRefused(cudnnFailureText(m_api, status, "running " + plan.what()));
    m_plan.emplace(std::move(plan));
    m_variantPack.emplace(std::move(pack));
    m_workspace = std::move(workspace);
}

// The device buffers of Q, K, V and O, the by-value scalars (host pointers) and the workspace.
CudnnDescriptor CudnnAttention::variantPack(CUdeviceptr workspace) {
    std::vector<std::int64_t> uids = {kUidQ, kUidK, kUidV, kUidO, kUidScale};
    std::vector<void*> pointers = {reinterpret_cast<void*>(lent(m_q)), reinterpret_cast<void*>(lent(m_k)), reinterpret_cast<void*>(lent(m_v)),
                                   reinterpret_cast<void*>(lent(m_o)), &m_scale};
    if (m_problem.causal) uids.push_back(kUidNegInf), pointers.push_back(&m_negInf);
    if (m_problem.causal && m_problem.seqQ != m_problem.seqK) {
        uids.insert(uids.end(), {kUidSeqQ, kUidSeqK});
        pointers.insert(pointers.end(), {&m_seqQ, &m_seqK});
    }
    void* space = reinterpret_cast<void*>(workspace);
    CudnnDescriptor pack(m_api, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, "the variant pack");
    pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids.data(), static_cast<std::int64_t>(uids.size()))
        .set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, pointers.data(), static_cast<std::int64_t>(pointers.size()))
        .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &space)
        .finalize();
    return pack;
}

}  // namespace

#endif  // KX_HAVE_CUDNN_HEADER

// [SECTION] The factory

namespace {

// attention_composed's instance, labelled as standing in for cuDNN, with the reason.
class ComposedInstead : public BaselineInstance {
public:
    ComposedInstead(std::unique_ptr<BaselineInstance> composed, std::string why) : m_composed(std::move(composed)), m_why(std::move(why)) {}
    std::string label() const override { return m_composed->label() + " (cuDNN's fused attention unavailable: " + m_why + ")"; }
    void run() override { m_composed->run(); }
    void useSet(int set, int sets, Translation lentInSet) override {
        BaselineInstance::useSet(set, sets, lentInSet);
        m_composed->useSet(set, sets, std::move(lentInSet));
    }

private:
    std::unique_ptr<BaselineInstance> m_composed;
    std::string m_why;
};

// The fallback when cuDNN did not take the problem; none in a runner built without nvcc.
std::unique_ptr<BaselineInstance> withoutCudnn(DeviceContext& ctx, const nlohmann::json& params, const BaselineBuffers& buffers,
                                               const std::string& why) {
#ifdef KX_HAVE_CUB
    return std::make_unique<ComposedInstead>(makeAttentionComposed(ctx, params, buffers), why);
#else
    (void)ctx, (void)params, (void)buffers;
    throw RunnerError(kName + ": cuDNN's fused attention unavailable (" + why +
                          "), and this kx-runner was built without nvcc, so it has no cuBLAS + softmax + cuBLAS fallback",
                      false);
#endif
}

}  // namespace

KX_BASELINE_FACTORY(makeCudnnAttention) {
    const AttentionProblem problem = parseProblem(params);
#if KX_HAVE_CUDNN_HEADER
    const CudnnApi& api = cudnnApi();
    if (!api.error.empty()) return withoutCudnn(ctx, params, buffers, "cuDNN not found: " + api.error);
    if (const std::string why = unsupported(problem, api.version, ctx.info()); !why.empty()) return withoutCudnn(ctx, params, buffers, why);
    try {
        return std::make_unique<CudnnAttention>(ctx, api, problem, buffers);
    } catch (const CudnnRefused& refused) {
        return withoutCudnn(ctx, params, buffers, std::string("cuDNN refused: ") + refused.what());
    }
#else
    (void)problem;
    return withoutCudnn(ctx, params, buffers, "cuDNN not found: this kx-runner was built without cudnn.h");
#endif
}

}  // namespace kx::runner
