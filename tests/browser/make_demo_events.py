#!/usr/bin/env python3
"""Writes demo_events.jsonl: the event log of a TileLang-style compile of one
GEMM kernel (lowering, target optimisation, code generation) with
deterministic, realistic pass durations. It feeds the README's screenshot of
the HTML report (see make_screenshot.sh)."""
import json
import random
import sys

rng = random.Random(1465)
t = 1_000_000_000
lines = [{"ev": "meta", "format": "passtiming-events", "version": 1,
          "tool": "passtiming 0.1.0", "command": "python gemm.py --m 4096 --n 4096 --k 4096"}]


def emit(ev, **fields):
    lines.append({"ev": ev, "t_ns": t, **fields})


def run(name, kernel, self_ms, children=()):
    """A pass that spends about self_ms of its own time around its children."""
    global t
    emit("before", **{"pass": name, "kernel": kernel})
    share = rng.uniform(0.3, 0.7)
    t += int(self_ms * share * 1e6 * rng.uniform(0.8, 1.2))
    for child in children:
        run(*child)
    t += int(self_ms * (1 - share) * 1e6 * rng.uniform(0.8, 1.2))
    emit("after", **{"pass": name})


K = "gemm_kernel"
lower = ("tl.LowerAndLegalize", K, 0.05, [
    ("BindTarget", K, 0.02), ("LetInline", K, 0.3), ("AddWrapperForSingleBufStore", K, 0.1),
    ("InjectAssumes", K, 0.2), ("Simplify", K, 1.9), ("LayoutReducer", K, 0.4),
    ("LayoutInference", K, 3.1, [("Simplify", K, 0.8), ("InferFragment", K, 1.4)]),
    ("LowerTileOp", K, 5.2, [("LowerGemm", K, 2.2), ("LowerCopy", K, 1.1), ("Simplify", K, 0.6)]),
    ("LowerL2Persistent", K, 0.1), ("LegalizeVectorizedLoop", K, 0.9),
    ("LegalizeSafeMemoryAccess", K, 1.2), ("Simplify", K, 1.1), ("LoopVectorizeDynamic", K, 0.5)])
optimize = ("tl.OptimizeForTarget", K, 0.05, [
    ("LowerSharedBarrier", K, 0.2), ("IfStmtBinding", K, 0.3), ("MultiVersionBuffer", K, 0.9),
    ("WarpSpecialized", K, 2.6), ("InjectTmaBarrier", K, 0.7), ("PipelinePlanning", K, 1.5),
    ("InjectSoftwarePipeline", K, 4.4, [("Simplify", K, 0.9)]), ("LowerOpaqueBlock", K, 0.6),
    ("FlattenBuffer", K, 0.8), ("ConfigIndexBitwidth", K, 0.2), ("VectorizeLoop", K, 1.3),
    ("StorageRewrite", K, 2.1), ("UnrollLoop", K, 1.0), ("RenormalizeSplitPattern", K, 0.3),
    ("Simplify", K, 1.4), ("RemoveNoOp", K, 0.2), ("HoistIfThenElse", K, 0.4),
    ("InjectPTXAsyncCopy", K, 0.6), ("MergeSharedMemoryAllocations", K, 1.7),
    ("ThreadSync", K, 1.9), ("AnnotateDeviceRegions", K, 0.2), ("SplitHostDevice", K, 1.2),
    ("MakePackedAPI", K, 0.9), ("LowerDeviceKernelLaunch", K, 0.5)])
codegen_host = ("tl.HostCodegen", "main", 0.05, [
    ("BindTarget", "main", 0.02), ("LowerTVMBuiltin", "main", 0.6),
    ("LowerIntrin", "main", 0.4), ("LowerDeviceStorageAccessInfo", "main", 0.2),
    ("CombineContextCall", "main", 0.1), ("codegen.build_llvm", "main", 6.5)])
codegen_device = ("tl.DeviceCodegen", K, 0.05, [
    ("LowerDeviceStorageAccessInfo", K, 0.2), ("LowerIntrin", K, 0.5),
    ("codegen.build_tilelang_cuda", K, 4.8, [("Simplify", K, 0.3)])])

for context, passes in [("stage=lower, kernel=gemm_kernel", [lower, optimize]),
                        ("stage=codegen, kernel=gemm_kernel", [codegen_host, codegen_device])]:
    emit("enter_ctx", context=context)
    for p in passes:
        run(*p)
        t += 20_000
    emit("exit_ctx")
    t += 300_000

out = open(sys.argv[1] if len(sys.argv) > 1 else "demo_events.jsonl", "w")
for line in lines:
    out.write(json.dumps(line, separators=(",", ":")) + "\n")
