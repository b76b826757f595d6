"""Real TileLang kernels for the tests: a tiled GEMM with shared memory, an
element-wise kernel and a reduction, written with ``tilelang.language``."""

import importlib.util
import pathlib

import tilelang.language as T

_EXAMPLE = pathlib.Path(__file__).resolve().parents[4] / "examples" / "tilelang" / "gemm.py"
_spec = importlib.util.spec_from_file_location("passtiming_example_gemm", _EXAMPLE)
_example_gemm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_example_gemm)


def gemm(M=256, N=256, K=256, block_M=64, block_N=64, block_K=32, dtype="float16"):
    """The tiled GEMM of examples/tilelang/gemm.py (the demo's kernel), smaller."""
    return _example_gemm.matmul(M, N, K, block_M, block_N, block_K, dtype)


def elementwise_add(M=1024, N=1024, block_M=32, block_N=32, dtype="float32"):
    @T.prim_func
    def add(
        A: T.Tensor((M, N), dtype),
        B: T.Tensor((M, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            for i, j in T.Parallel(block_M, block_N):
                C[by * block_M + i, bx * block_N + j] = (
                    A[by * block_M + i, bx * block_N + j] + B[by * block_M + i, bx * block_N + j]
                )

    return add


def row_sum(M=1024, N=512, block_M=32, dtype="float32"):
    @T.prim_func
    def reduce_rows(A: T.Tensor((M, N), dtype), B: T.Tensor((M,), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            A_shared = T.alloc_shared((block_M, N), dtype)
            A_local = T.alloc_fragment((block_M, N), dtype)
            B_local = T.alloc_fragment((block_M,), dtype)
            T.copy(A[bx * block_M, 0], A_shared)
            T.copy(A_shared, A_local)
            T.reduce_sum(A_local, B_local, dim=1)
            T.copy(B_local, B[bx * block_M])

    return reduce_rows
