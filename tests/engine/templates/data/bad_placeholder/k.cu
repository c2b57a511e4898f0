extern "C" __global__ void ${KERNEL_NAME}(float* x) {
  x[threadIdx.x] = ${BLOCK};
  x[0] = ${BLOKC};
}
