// Four matmul kernels of a tile-kernel compiler, each a linalg.matmul on
// tensors. The transform schedule at the bottom tiles every matmul into
// 32x32x16 tiles; `pipeline.txt` lowers the result to the LLVM dialect.
// The schedule is private so that `symbol-dce` drops it once applied.
module attributes {transform.with_named_sequence} {
  func.func @matmul_128(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>,
                        %c: tensor<128x128xf32>) -> tensor<128x128xf32> {
    %0 = linalg.matmul ins(%a, %b : tensor<128x128xf32>, tensor<128x128xf32>)
                       outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
    return %0 : tensor<128x128xf32>
  }
  func.func @matmul_256(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>,
                        %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
    %0 = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>)
                       outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
    return %0 : tensor<256x256xf32>
  }
  func.func @matmul_qk(%q: tensor<64x128xf32>, %k: tensor<128x512xf32>,
                       %s: tensor<64x512xf32>) -> tensor<64x512xf32> {
    %0 = linalg.matmul ins(%q, %k : tensor<64x128xf32>, tensor<128x512xf32>)
                       outs(%s : tensor<64x512xf32>) -> tensor<64x512xf32>
    return %0 : tensor<64x512xf32>
  }
  func.func @matmul_pv(%p: tensor<64x512xf32>, %v: tensor<512x128xf32>,
                       %o: tensor<64x128xf32>) -> tensor<64x128xf32> {
    %0 = linalg.matmul ins(%p, %v : tensor<64x512xf32>, tensor<512x128xf32>)
                       outs(%o : tensor<64x128xf32>) -> tensor<64x128xf32>
    return %0 : tensor<64x128xf32>
  }

  transform.named_sequence private @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %matmuls = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %tiled, %loops:3 = transform.structured.tile_using_for %matmuls tile_sizes [32, 32, 16]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
