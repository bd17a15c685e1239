#define PATC_INDEX32
#include "gt.cu"
#include <cub/cub.cuh>
#include "timing.cuh"
#include <string>
struct Var { std::string name; int cap; bool f32; std::function<void(unsigned *, const unsigned *, int, cudaStream_t)> run; };
int main(int argc, char **argv) {
    std::vector<long long> sizes = {2048, 4096, 4097, 4864};
    if (!sizes_from_args(argc, argv, 1, 1 << 20, sizes)) return 1;
    cudaDeviceProp pr; CK(cudaGetDeviceProperties(&pr, 0)); printf("# %s\n", pr.name);
    cudaStream_t s; CK(cudaStreamCreate(&s));
    HoldFlag hf; hf.init();
    std::vector<Var> vars;
    CK(cudaFuncSetAttribute(f384x13, cudaFuncAttributeMaxDynamicSharedMemorySize, 21632));
    vars.push_back({"f384x13", 4992, true, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { f384x13<<<(n + 4991) / 4992, 384, 21632, s>>>(o, i, n); }});
    CK(cudaFuncSetAttribute(u384x13, cudaFuncAttributeMaxDynamicSharedMemorySize, 21632));
    vars.push_back({"u384x13", 4992, false, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { u384x13<<<(n + 4991) / 4992, 384, 21632, s>>>(o, i, n); }});
    CK(cudaFuncSetAttribute(f256x16, cudaFuncAttributeMaxDynamicSharedMemorySize, 17536));
    vars.push_back({"f256x16", 4096, true, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { f256x16<<<(n + 4095) / 4096, 256, 17536, s>>>(o, i, n); }});
    CK(cudaFuncSetAttribute(u256x16, cudaFuncAttributeMaxDynamicSharedMemorySize, 17536));
    vars.push_back({"u256x16", 4096, false, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { u256x16<<<(n + 4095) / 4096, 256, 17536, s>>>(o, i, n); }});
    CK(cudaFuncSetAttribute(f256x8, cudaFuncAttributeMaxDynamicSharedMemorySize, 9344));
    vars.push_back({"f256x8", 2048, true, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { f256x8<<<(n + 2047) / 2048, 256, 9344, s>>>(o, i, n); }});
    CK(cudaFuncSetAttribute(u256x8, cudaFuncAttributeMaxDynamicSharedMemorySize, 9344));
    vars.push_back({"u256x8", 2048, false, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { u256x8<<<(n + 2047) / 2048, 256, 9344, s>>>(o, i, n); }});
    CK(cudaFuncSetAttribute(of384x13, cudaFuncAttributeMaxDynamicSharedMemorySize, 21632));
    vars.push_back({"of384x13", 4992, true, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { of384x13<<<(n + 4991) / 4992, 384, 21632, s>>>(o, i, n); }});
    CK(cudaFuncSetAttribute(ou384x13, cudaFuncAttributeMaxDynamicSharedMemorySize, 21632));
    vars.push_back({"ou384x13", 4992, false, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { ou384x13<<<(n + 4991) / 4992, 384, 21632, s>>>(o, i, n); }});
    CK(cudaFuncSetAttribute(of256x16, cudaFuncAttributeMaxDynamicSharedMemorySize, 17536));
    vars.push_back({"of256x16", 4096, true, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { of256x16<<<(n + 4095) / 4096, 256, 17536, s>>>(o, i, n); }});
    CK(cudaFuncSetAttribute(ou256x16, cudaFuncAttributeMaxDynamicSharedMemorySize, 17536));
    vars.push_back({"ou256x16", 4096, false, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { ou256x16<<<(n + 4095) / 4096, 256, 17536, s>>>(o, i, n); }});
    CK(cudaFuncSetAttribute(of256x8, cudaFuncAttributeMaxDynamicSharedMemorySize, 9344));
    vars.push_back({"of256x8", 2048, true, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { of256x8<<<(n + 2047) / 2048, 256, 9344, s>>>(o, i, n); }});
    CK(cudaFuncSetAttribute(ou256x8, cudaFuncAttributeMaxDynamicSharedMemorySize, 9344));
    vars.push_back({"ou256x8", 2048, false, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { ou256x8<<<(n + 2047) / 2048, 256, 9344, s>>>(o, i, n); }});
    CK(cudaFuncSetAttribute(wf384x13, cudaFuncAttributeMaxDynamicSharedMemorySize, 21632));
    vars.push_back({"wf384x13", 4992, true, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { wf384x13<<<(n + 4991) / 4992, 384, 21632, s>>>(o, i, n); }});
    CK(cudaFuncSetAttribute(wu384x13, cudaFuncAttributeMaxDynamicSharedMemorySize, 21632));
    vars.push_back({"wu384x13", 4992, false, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { wu384x13<<<(n + 4991) / 4992, 384, 21632, s>>>(o, i, n); }});
    CK(cudaFuncSetAttribute(wf256x16, cudaFuncAttributeMaxDynamicSharedMemorySize, 17536));
    vars.push_back({"wf256x16", 4096, true, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { wf256x16<<<(n + 4095) / 4096, 256, 17536, s>>>(o, i, n); }});
    CK(cudaFuncSetAttribute(wu256x16, cudaFuncAttributeMaxDynamicSharedMemorySize, 17536));
    vars.push_back({"wu256x16", 4096, false, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { wu256x16<<<(n + 4095) / 4096, 256, 17536, s>>>(o, i, n); }});
    CK(cudaFuncSetAttribute(wf256x8, cudaFuncAttributeMaxDynamicSharedMemorySize, 9344));
    vars.push_back({"wf256x8", 2048, true, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { wf256x8<<<(n + 2047) / 2048, 256, 9344, s>>>(o, i, n); }});
    CK(cudaFuncSetAttribute(wu256x8, cudaFuncAttributeMaxDynamicSharedMemorySize, 9344));
    vars.push_back({"wu256x8", 2048, false, [](unsigned *o, const unsigned *i, int n, cudaStream_t s) { wu256x8<<<(n + 2047) / 2048, 256, 9344, s>>>(o, i, n); }});
    long long maxn = 8192;
    unsigned *in, *o1, *o2, *o3; CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&o1, maxn * 4)); CK(cudaMalloc(&o2, maxn * 4)); CK(cudaMalloc(&o3, maxn * 4));
    std::vector<unsigned> h(maxn), a(maxn), a2(maxn), b(maxn);
    void *tmp = nullptr; size_t tbmax = 0;
    cub::DeviceRadixSort::SortKeys(nullptr, tbmax, in, o1, (int)maxn, 0, 32, s);
    CK(cudaMalloc(&tmp, tbmax + 1024));
    for (int kind = 0; kind < 2; kind++)
    for (long long n : sizes) {
        uint64_t st = 12345 + n;
        for (long long i = 0; i < n; i++) {
            uint64_t r = splitmix64(st);
            float f = ((float)(r & 0xffffff) / 16777216.0f - 0.5f) * 1000.0f;
            if (kind == 1) f = (float)((int)(r % 17) - 8);
            memcpy(&h[i], &f, 4);
        }
        CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
        std::vector<std::function<void()>> ops; std::vector<std::string> names;
        ops.push_back([&, n] { CK(cudaMemcpyAsync(o2, in, n * 4, cudaMemcpyDeviceToDevice, s)); }); names.push_back("copy");
        ops.push_back([&, n] { size_t t2 = tbmax; cub::DeviceRadixSort::SortKeys(tmp, t2, (const float *)in, (float *)o1, (int)n, 0, 32, s); }); names.push_back("cubf32");
        ops.push_back([&, n] { size_t t2 = tbmax; cub::DeviceRadixSort::SortKeys(tmp, t2, in, o3, (int)n, 0, 32, s); }); names.push_back("cubu32");
        ops[1](); ops[2](); CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(a.data(), o1, n * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(a2.data(), o3, n * 4, cudaMemcpyDeviceToHost));
        auto check = [&](const std::string &nm, bool f32) {
            CK(cudaStreamSynchronize(s)); CK(cudaGetLastError());
            CK(cudaMemcpy(b.data(), o2, n * 4, cudaMemcpyDeviceToHost));
            for (long long i = 0; i < n; i++) if ((f32 ? a : a2)[i] != b[i]) { printf("FAIL %s n=%lld at %lld\n", nm.c_str(), n, i); return false; }
            return true;
        };
        for (auto &v : vars) if (n <= v.cap && n * 2 > v.cap) { auto f = v.run; ops.push_back([&, f, n] { f(o2, in, (int)n, s); }); names.push_back(v.name);
            CK(cudaMemsetAsync(o2, 0, n * 4, s)); ops.back()(); if (!check(v.name, v.f32)) names.back() += "(FAIL)"; }
        std::vector<std::vector<float>> al, qu;
        time_interleaved(ops, s, hf, 20, 300, al, qu);
        for (size_t k = 0; k < ops.size(); k++)
            printf("%s n=%lld %-14s alone %7.2f queued %7.2f cubf32/this %.3f cubu32/this %.3f\n", kind ? "few" : "uni", n, names[k].c_str(), median_us(al[k]), median_us(qu[k]), median_us(al[1]) / median_us(al[k]), median_us(al[2]) / median_us(al[k]));
    }
    return 0;
}
