#!/usr/bin/env python3
"""Prints an MLIR file whose kernels are those of INPUT repeated COPIES
times under new names (@matmul_... -> @r0_matmul_..., @r1_...), with its
transform schedule once at the end: a larger input for the MLIR benchmarks.

Usage: repeat_kernels.py INPUT COPIES > OUTPUT
"""
import re
import sys

text = open(sys.argv[1]).read()
head = "module attributes {transform.with_named_sequence} {\n"
begin = text.index(head) + len(head)
end = text.index("  transform.named_sequence")
body = text[begin:end]
out = head + "".join(re.sub(r"@matmul_", f"@r{i}_matmul_", body) for i in range(int(sys.argv[2])))
print(out + text[end:], end="")
