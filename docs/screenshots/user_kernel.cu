// Each thread keeps 32 partial products in registers: more than 32 registers unless capped.
__global__ void heavy(float* x, const float* y) {
    float acc[32];
    for (int i = 0; i < 32; ++i) acc[i] = y[threadIdx.x + i * 256];
    for (int k = 0; k < 64; ++k)
        for (int i = 0; i < 32; ++i) acc[i] = acc[i] * acc[(i + k) % 32] + y[k];
    float s = 0;
    for (int i = 0; i < 32; ++i) s += acc[i];
    x[threadIdx.x] = s;
}
