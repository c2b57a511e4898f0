// ${KERNEL_NAME} for ${ARCH}
#include <cuda_fp16.h>
extern "C" __global__ void ${KERNEL_NAME}(${ctype}* x, int n) {
    const int base = blockIdx.x * ${ITEMS} + threadIdx.x;
#pragma unroll
    for (int u = 0; u < ${UNROLL}; ++u) {
        const int i = base + u * ${BLOCK};
        if (i < n) x[i] = x[i] * (${ctype})2.0f;
    }
}
