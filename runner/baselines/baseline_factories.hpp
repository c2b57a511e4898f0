// Every baseline's factory, one file each in this folder; registry.cpp lists them by name.
#pragma once

#include "baselines/baseline.hpp"

namespace kx::runner {

#define KX_BASELINE_FACTORY(name) \
    std::unique_ptr<BaselineInstance> name(DeviceContext& ctx, const nlohmann::json& params, const BaselineBuffers& buffers)

KX_BASELINE_FACTORY(makeCopy);
KX_BASELINE_FACTORY(makeCublasGemm);
KX_BASELINE_FACTORY(makeCublasLtGemm);
// cuDNN, dlopened at run time (cudnn_library.hpp); their fallbacks (im2col + cuBLAS, and
// attention_composed's cuBLAS + softmax + cuBLAS) need nvcc.
KX_BASELINE_FACTORY(makeCudnnConv);
KX_BASELINE_FACTORY(makeCudnnAttention);
// CUB's algorithms: compiled only when the build has nvcc (KX_HAVE_CUB).
KX_BASELINE_FACTORY(makeCubReduce);
KX_BASELINE_FACTORY(makeCubScan);
KX_BASELINE_FACTORY(makeCubSelect);
KX_BASELINE_FACTORY(makeCubHistogram);
KX_BASELINE_FACTORY(makeCubRadixSort);
KX_BASELINE_FACTORY(makeCubReduceByKey);
KX_BASELINE_FACTORY(makeCubSortJoin);
// The fused templates' unfused sequences (unfused.cu), also built by nvcc.
KX_BASELINE_FACTORY(makeUnfusedRowwise);
KX_BASELINE_FACTORY(makeUnfusedGlu);
KX_BASELINE_FACTORY(makeUnfusedNormRope);
KX_BASELINE_FACTORY(makeAttentionComposed);
KX_BASELINE_FACTORY(makeUnfusedLnLinear);

}  // namespace kx::runner
