// The "cudnn_conv" baseline's problem, shared by its cuDNN path (cudnn_conv.cpp, always built)
// and its im2col + cuBLAS fallback (cudnn_conv_fallback.cu, built only with nvcc).
#pragma once

#include "baselines/baseline.hpp"

#include <memory>
#include <string>

namespace kx::runner {

// templates/conv's `direction`: which tensor is computed from which (A and B in, D out).
//   Forward         A = x,  B = w, D = y
//   BackwardData    A = dy, B = w, D = dx
//   BackwardWeight  A = dy, B = x, D = dw
enum class ConvDirection { Forward, BackwardData, BackwardWeight };

// templates/conv's sizes. Plain integers, so that kernels can take it by value. Spatial arrays
// are depth, height, width; `out` is derived from the others.
struct ConvShape {
    long long batch = 0, groups = 0, inChannels = 0, outChannels = 0;  // N, G, C, K (per group)
    long long in[3] = {}, filter[3] = {}, out[3] = {};                  // Di Hi Wi, Z Y X, Do Ho Wo
    long long stride[3] = {}, pad[3] = {}, dil[3] = {};
    bool channelsLast = true;  // layout nhwgc: x[n][d][h][w][g][c]; else nchw: x[n][g][c][d][h][w]
};

struct ConvProblem {
    ConvDirection direction = ConvDirection::Forward;
    std::string dtype;  // f16, bf16, f32
    ConvShape shape;
};

// Element counts of x (and dx), w (and dw), y (and dy).
inline long long inputElements(const ConvShape& s) { return s.batch * s.in[0] * s.in[1] * s.in[2] * s.groups * s.inChannels; }
inline long long filterElements(const ConvShape& s) {
    return s.groups * s.outChannels * s.filter[0] * s.filter[1] * s.filter[2] * s.inChannels;
}
inline long long outputElements(const ConvShape& s) { return s.batch * s.out[0] * s.out[1] * s.out[2] * s.groups * s.outChannels; }
inline std::size_t convElementBytes(const std::string& dtype) { return dtype == "f32" ? 4 : 2; }

// "fwd f16 NHWGC", for labels.
std::string describeConv(const ConvProblem& problem);

// The run's buffers as the direction uses them (see ConvDirection).
struct ConvOperands {
    CUdeviceptr a = 0, b = 0, d = 0;
    // The baseline's own output buffer when the manifest asked for none. Shared, so that it
    // outlives a cuDNN instance that gave up and passes to the fallback.
    std::shared_ptr<DeviceBuffer> ownOutput;
};

// The fallback (cudnn_conv_fallback.cu). `why` says why cuDNN was not used; the label shows
// it. Throws RunnerError when a temporary cannot be allocated or a size exceeds cuBLAS's int.
std::unique_ptr<BaselineInstance> makeIm2colConv(DeviceContext& ctx, const ConvProblem& problem, const ConvOperands& operands,
                                                 const std::string& why);

}  // namespace kx::runner
