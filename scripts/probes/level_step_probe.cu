// Probe behind the choice of the persistent level loop (now lib/cuda/product/fused_bfs.cu): what
// one step between BFS levels costs on this GPU, 4000 steps each, timed with CUDA events:
//   - a CUDA graph with a WHILE node whose body is a 1-thread dispatch kernel and two IF nodes,
//     one of which runs a 1056-block kernel (device-side choice without the host);
//   - host launches of that kernel back to back (no choice at all);
//   - a launch plus a copy of a counter to pinned memory plus a stream sync (the host loop);
//   - grid.sync() in one cooperative kernel, for 1, 2 and the maximum blocks per SM.
// Not part of the build. On the GPU host:
//   nvcc -O2 -arch=sm_90 -o /tmp/level_step_probe scripts/probes/level_step_probe.cu && /tmp/level_step_probe
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdio>
#define CK(x)                                                              \
  do {                                                                     \
    cudaError_t e = (x);                                                   \
    if (e != cudaSuccess) {                                                \
      printf("ERR %s line %d: %s\n", #x, __LINE__, cudaGetErrorString(e)); \
      return 1;                                                            \
    }                                                                      \
  } while (0)
namespace cg = cooperative_groups;
struct Ctl {
  int iter;
  int limit;
  int which;
};
__global__ void dispatch(Ctl* c, cudaGraphConditionalHandle hw, cudaGraphConditionalHandle h0,
                         cudaGraphConditionalHandle h1) {
  int i = c->iter;
  cudaGraphSetConditional(hw, i + 1 < c->limit ? 1 : 0);
  cudaGraphSetConditional(h0, (i & 1) == 0);
  cudaGraphSetConditional(h1, (i & 1) == 1);
}
__global__ void work(Ctl* c, int* data) {
  // do a trivial amount of work; last block bumps iter
  __shared__ int s;
  if (threadIdx.x == 0) s = atomicAdd(&data[0], 1);
  __syncthreads();
  if (threadIdx.x == 0 && s == (int)gridDim.x * (c->iter + 1) - 1) c->iter += 1;
}
__global__ void coop(Ctl* c, int* data, int iters) {
  cg::grid_group g = cg::this_grid();
  for (int i = 0; i < iters; ++i) {
    if (threadIdx.x == 0) atomicAdd(&data[1], 1);
    g.sync();
  }
}
int main() {
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  printf("device %s driver %d runtime %d sms %d\n", p.name, drv, rt, p.multiProcessorCount);
  Ctl* c;
  int* data;
  CK(cudaMalloc(&c, sizeof(Ctl)));
  CK(cudaMalloc(&data, 64));
  cudaStream_t st;
  CK(cudaStreamCreate(&st));
  const int N = 4000;
  const int grid = p.multiProcessorCount * 8;
  cudaGraph_t graph;
  CK(cudaGraphCreate(&graph, 0));
  cudaGraphConditionalHandle hw, h0, h1;
  CK(cudaGraphConditionalHandleCreate(&hw, graph, 1, cudaGraphCondAssignDefault));
  CK(cudaGraphConditionalHandleCreate(&h0, graph, 0, 0));
  CK(cudaGraphConditionalHandleCreate(&h1, graph, 0, 0));
  cudaGraphNodeParams wp = {};
  wp.type = cudaGraphNodeTypeConditional;
  wp.conditional.handle = hw;
  wp.conditional.type = cudaGraphCondTypeWhile;
  wp.conditional.size = 1;
  cudaGraphNode_t wn;
  CK(cudaGraphAddNode(&wn, graph, nullptr, nullptr, 0, &wp));
  cudaGraph_t body = wp.conditional.phGraph_out[0];
  cudaGraphNode_t dn;
  {
    cudaKernelNodeParams k = {};
    void* args[] = {&c, &hw, &h0, &h1};
    k.func = (void*)dispatch;
    k.gridDim = 1;
    k.blockDim = 1;
    k.kernelParams = args;
    CK(cudaGraphAddKernelNode(&dn, body, nullptr, 0, &k));
  }
  cudaGraphNode_t prev = dn;
  for (int b = 0; b < 2; ++b) {
    cudaGraphNodeParams ip = {};
    ip.type = cudaGraphNodeTypeConditional;
    ip.conditional.handle = b ? h1 : h0;
    ip.conditional.type = cudaGraphCondTypeIf;
    ip.conditional.size = 1;
    cudaGraphNode_t in;
    CK(cudaGraphAddNode(&in, body, &prev, nullptr, 1, &ip));
    cudaGraph_t ib = ip.conditional.phGraph_out[0];
    cudaKernelNodeParams k = {};
    void* args[] = {&c, &data};
    k.func = (void*)work;
    k.gridDim = grid;
    k.blockDim = 256;
    k.kernelParams = args;
    cudaGraphNode_t kn;
    CK(cudaGraphAddKernelNode(&kn, ib, nullptr, 0, &k));
    prev = in;
  }
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaGraphExec_t ex;
  cudaEventRecord(e0, st);
  CK(cudaGraphInstantiate(&ex, graph, 0));
  cudaEventRecord(e1, st);
  cudaEventSynchronize(e1);
  for (int rep = 0; rep < 4; ++rep) {
    Ctl h{0, N, 0};
    CK(cudaMemcpy(c, &h, sizeof h, cudaMemcpyHostToDevice));
    CK(cudaMemset(data, 0, 64));
    cudaEventRecord(e0, st);
    CK(cudaGraphLaunch(ex, st));
    cudaEventRecord(e1, st);
    CK(cudaEventSynchronize(e1));
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    Ctl back;
    CK(cudaMemcpy(&back, c, sizeof back, cudaMemcpyDeviceToHost));
    printf("graph while+if: %d iters %.3f ms = %.2f us/iter (iter=%d)\n", N, ms, ms * 1000 / N, back.iter);
  }
  // host-launched: dispatch-less, just launches back to back
  for (int rep = 0; rep < 2; ++rep) {
    Ctl h{0, N, 0};
    CK(cudaMemcpy(c, &h, sizeof h, cudaMemcpyHostToDevice));
    CK(cudaMemset(data, 0, 64));
    cudaEventRecord(e0, st);
    for (int i = 0; i < N; ++i) work<<<grid, 256, 0, st>>>(c, data);
    cudaEventRecord(e1, st);
    CK(cudaEventSynchronize(e1));
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    printf("host launches back to back: %.2f us/iter\n", ms * 1000 / N);
  }
  // host round trip per level
  {
    int* hp;
    cudaMallocHost(&hp, 4);
    cudaEventRecord(e0, st);
    for (int i = 0; i < 1000; ++i) {
      work<<<grid, 256, 0, st>>>(c, data);
      cudaMemcpyAsync(hp, data, 4, cudaMemcpyDeviceToHost, st);
      cudaStreamSynchronize(st);
    }
    cudaEventRecord(e1, st);
    CK(cudaEventSynchronize(e1));
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    printf("launch + copy + sync per level: %.2f us/iter\n", ms * 1000 / 1000);
  }
  // cooperative grid sync
  {
    int bps = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, coop, 256, 0));
    for (int g2 : {p.multiProcessorCount, p.multiProcessorCount * 2, p.multiProcessorCount * bps}) {
      int iters = N;
      void* args[] = {&c, &data, &iters};
      cudaEventRecord(e0, st);
      CK(cudaLaunchCooperativeKernel((void*)coop, g2, 256, args, 0, st));
      cudaEventRecord(e1, st);
      CK(cudaEventSynchronize(e1));
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      printf("cooperative grid.sync grid=%d: %.2f us/iter\n", g2, ms * 1000 / N);
    }
  }
  return 0;
}
