extern "C" __global__ void ${KERNEL_NAME}(const void* A, int M) {}
