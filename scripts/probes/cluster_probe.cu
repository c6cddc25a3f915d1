// Probe behind issue 11's item 3 (narrow levels under the grid barrier): on this GPU, can the
// fused BFS's cooperative launch also be a cluster launch, how many 1024-thread blocks fit as
// clusters of 2..16, and what do a cluster barrier, a grid barrier and a dependent load from
// another block's shared memory (DSMEM) or from L2 cost, in ns a step (CUDA events, 4000 steps).
// Not part of the build. On the GPU host:
//   nvcc -O2 -arch=sm_90 -o /tmp/cluster_probe scripts/probes/cluster_probe.cu && /tmp/cluster_probe
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdio>
namespace cg = cooperative_groups;

#define CK(x)                                                              \
  do {                                                                     \
    cudaError_t e = (x);                                                   \
    if (e != cudaSuccess) {                                                \
      printf("ERR %s line %d: %s\n", #x, __LINE__, cudaGetErrorString(e)); \
      return 1;                                                            \
    }                                                                      \
  } while (0)

// mode 0: grid.sync a step; 1: cluster.sync a step; 2: a dependent DSMEM load chain (thread 0 of
// each block, from the next block of its cluster); 3: a dependent L2 load chain (__ldcg);
// 4: the cluster barrier with a relaxed arrive; 5: a barrier of flags in shared memory (below);
// 6: a block barrier, one thread's release fence at cluster scope, then the relaxed cluster
// barrier (7: a warp's fences).
__global__ void __launch_bounds__(1024, 1) steps(int mode, int iters, unsigned* chain, unsigned* out) {
  extern __shared__ unsigned sm[];
  cg::grid_group grid = cg::this_grid();
  cg::cluster_group cl = cg::this_cluster();
  for (unsigned i = threadIdx.x; i < 4096; i += blockDim.x) sm[i] = (i * 97 + 13) & 4095;
  cl.sync();
  unsigned x = threadIdx.x & 4095, acc = 0;
  if (mode == 0) {
    for (int i = 0; i < iters; ++i) grid.sync();
  } else if (mode == 1) {
    for (int i = 0; i < iters; ++i) cl.sync();
  } else if (mode == 2) {
    if (threadIdx.x == 0) {
      const unsigned* remote = cl.map_shared_rank(sm, (cl.block_rank() + 1) % cl.num_blocks());
      for (int i = 0; i < iters; ++i) x = remote[x];
    }
  } else if (mode == 3) {
    if (threadIdx.x == 0)
      for (int i = 0; i < iters; ++i) x = __ldcg(chain + x * 33 % (1u << 22));
  } else if (mode == 4) {  // the cluster barrier with a relaxed arrive (no release fence)
    for (int i = 0; i < iters; ++i)
      asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
  } else if (mode == 6) {  // block barrier, one thread's release fence, relaxed arrive, acquire wait
    for (int i = 0; i < iters; ++i) {
      sm[4200 + threadIdx.x % 64] = unsigned(i);  // something to publish
      __syncthreads();
      if (threadIdx.x == 0) asm volatile("fence.acq_rel.cluster;" ::: "memory");
      asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
    }
  } else if (mode == 7) {  // as 6, one warp fences
    for (int i = 0; i < iters; ++i) {
      sm[4200 + threadIdx.x % 64] = unsigned(i);
      __syncthreads();
      if (threadIdx.x < 32) asm volatile("fence.acq_rel.cluster;" ::: "memory");
      asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
    }
  } else {  // block barrier, then thread 0 of each block: a remote add into rank 0, rank 0 spins
            // on it and then writes each block's flag remotely; each thread 0 spins on its flag
    volatile unsigned* flag = sm + 4096;
    unsigned* count0 = cl.map_shared_rank(sm + 4097, 0);
    if (threadIdx.x == 0) flag[0] = 0, sm[4097] = 0;
    cl.sync();
    const unsigned nb = cl.num_blocks();
    for (int i = 1; i <= iters; ++i) {
      __syncthreads();
      if (threadIdx.x == 0) {
        asm volatile(
            "red.release.cluster.shared::cluster.add.u32 [%0], 1;" ::"r"(unsigned(__cvta_generic_to_shared(count0)))
            : "memory");
        if (cl.block_rank() == 0) {
          unsigned v;
          do {
            asm volatile("ld.acquire.cluster.shared::cta.u32 %0, [%1];"
                         : "=r"(v)
                         : "r"(unsigned(__cvta_generic_to_shared(sm + 4097)))
                         : "memory");
          } while (v < nb * unsigned(i));
          for (unsigned r = 0; r < nb; ++r) {
            unsigned* f = cl.map_shared_rank(sm + 4096, r);
            asm volatile(
                "st.release.cluster.shared::cluster.u32 [%0], %1;" ::"r"(unsigned(__cvta_generic_to_shared(f))),
                "r"(unsigned(i))
                : "memory");
          }
        }
        unsigned v;
        do {
          asm volatile("ld.acquire.cluster.shared::cta.u32 %0, [%1];"
                       : "=r"(v)
                       : "r"(unsigned(__cvta_generic_to_shared(sm + 4096)))
                       : "memory");
        } while (v < unsigned(i));
      }
      __syncthreads();
    }
  }
  acc += x;
  if (acc == 0xffffffffu) out[0] = acc;
  cl.sync();  // no block leaves while another may still read its shared memory
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  printf("device %s sms %d\n", p.name, p.multiProcessorCount);
  unsigned *chain, *out;
  CK(cudaMalloc(&chain, (1u << 22) * sizeof(unsigned)));
  CK(cudaMalloc(&out, 64));
  {
    unsigned* h = new unsigned[1u << 22];
    for (unsigned i = 0; i < (1u << 22); ++i) h[i] = (i * 2654435761u) % (1u << 22);
    CK(cudaMemcpy(chain, h, (1u << 22) * sizeof(unsigned), cudaMemcpyHostToDevice));
    delete[] h;
  }
  CK(cudaFuncSetAttribute(steps, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  const size_t smem = 64 * 1024;
  CK(cudaFuncSetAttribute(steps, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  const int iters = 4000;
  for (int c : {1, 2, 4, 8, 16}) {
    cudaLaunchConfig_t cfg{};
    cudaLaunchAttribute at[2];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = unsigned(c);
    at[0].val.clusterDim.y = at[0].val.clusterDim.z = 1;
    at[1].id = cudaLaunchAttributeCooperative;
    at[1].val.cooperative = 1;
    cfg.blockDim = dim3(1024);
    cfg.dynamicSmemBytes = smem;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    cfg.gridDim = dim3(unsigned(c));
    int clusters = 0;
    cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, steps, &cfg);
    if (e != cudaSuccess) {
      printf("cluster %2d: occupancy query failed: %s\n", c, cudaGetErrorString(e));
      cudaGetLastError();
      continue;
    }
    const int blocks = clusters * c;
    printf("cluster %2d: max active clusters %d -> %d blocks\n", c, clusters, blocks);
    if (blocks == 0) continue;
    cfg.gridDim = dim3(unsigned(blocks));
    cfg.numAttrs = 2;
    for (int mode = 0; mode < 8; ++mode) {
      for (int rep = 0; rep < 2; ++rep) {  // the first is a warm-up
        CK(cudaEventRecord(a));
        e = cudaLaunchKernelEx(&cfg, steps, mode, iters, chain, out);
        CK(cudaEventRecord(b));
        cudaError_t s = cudaEventSynchronize(b);
        if (e != cudaSuccess || s != cudaSuccess) {
          printf("  mode %d: launch %s / sync %s\n", mode, cudaGetErrorString(e), cudaGetErrorString(s));
          cudaGetLastError();
          break;
        }
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (rep == 1)
          printf("  %-28s %8.1f ns a step\n",
                 mode == 0   ? "grid.sync"
                 : mode == 1 ? "cluster.sync"
                 : mode == 2 ? "dependent DSMEM load"
                 : mode == 3 ? "dependent L2 load (__ldcg)"
                 : mode == 4 ? "cluster barrier, relaxed arrive"
                 : mode == 5 ? "flag barrier in DSMEM"
                 : mode == 6 ? "bar.sync, 1 fence, relaxed"
                             : "bar.sync, warp fence, relaxed",
                 ms * 1e6 / iters);
      }
    }
  }
  return 0;
}
