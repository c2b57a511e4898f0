// Test data: one MFMA kernel whose accumulator lives in AGPRs. mfma_gfx90a.s is clang 19's assembly of it:
// clang++-19 -x hip --offload-arch=gfx90a --cuda-device-only -nogpulib -nogpuinc -O3 -S -std=c++17
//   -DKX_HIP_PRELUDE -include assets/hip/kx_hip_prelude.h mfma_gfx90a.hip -o mfma_gfx90a.s
typedef float v4f __attribute__((ext_vector_type(4)));
extern "C" __global__ __launch_bounds__(64) void mf(const float* a, v4f* c) {
  v4f acc = {0,0,0,0};
  for (int i = 0; i < 64; ++i) acc = __builtin_amdgcn_mfma_f32_16x16x4f32(a[i], a[i+1], acc, 0, 0, 0);
  c[threadIdx.x] = acc;
}
