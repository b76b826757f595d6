"""A tiled GEMM in TileLang, lowered for CUDA by TileLang's own pipeline.

A plain TileLang script, with nothing of passtiming in it: time it with

    passtiming run -- python examples/tilelang/gemm.py

(scripts/demo.sh tilelang does). Lowering needs no GPU; the script prints
the size of the CUDA source TileLang generated.
"""

import tilelang
import tilelang.language as T
import tvm


def matmul(M, N, K, block_M=128, block_N=128, block_K=32, dtype="float16", accum_dtype="float"):
    @T.prim_func
    def gemm(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return gemm


if __name__ == "__main__":
    target = tvm.target.Target("cuda")
    with target:
        artifact = tilelang.lower(matmul(1024, 1024, 1024), target=target)
    print(f"lowered gemm: {len(artifact.kernel_source)} bytes of CUDA source")
