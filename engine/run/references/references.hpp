// The CPU references, one file each in this folder; reference_registry.cpp lists them by the
// name manifests use. Each fills the report from the context (see reference_registry.hpp).
#pragma once

#include "run/reference_registry.hpp"

namespace kx::engine {

void checkGemm(const CheckContext& ctx, CorrectnessReport& report);
void checkReduce(const CheckContext& ctx, CorrectnessReport& report);
void checkMap(const CheckContext& ctx, CorrectnessReport& report);
void checkScan(const CheckContext& ctx, CorrectnessReport& report);
void checkFilter(const CheckContext& ctx, CorrectnessReport& report);
void checkHistogram(const CheckContext& ctx, CorrectnessReport& report);
void checkTranspose(const CheckContext& ctx, CorrectnessReport& report);
void checkStencil(const CheckContext& ctx, CorrectnessReport& report);
void checkRadixSort(const CheckContext& ctx, CorrectnessReport& report);
void checkGroupBy(const CheckContext& ctx, CorrectnessReport& report);
void checkJoin(const CheckContext& ctx, CorrectnessReport& report);
void checkRownorm(const CheckContext& ctx, CorrectnessReport& report);
void checkGlu(const CheckContext& ctx, CorrectnessReport& report);
void checkNormRope(const CheckContext& ctx, CorrectnessReport& report);
void checkAttention(const CheckContext& ctx, CorrectnessReport& report);
void checkLnLinear(const CheckContext& ctx, CorrectnessReport& report);
void checkConv(const CheckContext& ctx, CorrectnessReport& report);

}  // namespace kx::engine
