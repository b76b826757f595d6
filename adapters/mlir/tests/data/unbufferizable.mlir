// The example with one kernel that the pipeline cannot lower: the
// report must still show the passes that ran before the failure.
module attributes {transform.with_named_sequence} {
  func.func @matmul_128(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>,
                        %c: tensor<128x128xf32>) -> tensor<128x128xf32> {
    %0 = linalg.matmul ins(%a, %b : tensor<128x128xf32>, tensor<128x128xf32>)
                       outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
    return %0 : tensor<128x128xf32>
  }
  // math.exp on a tensor has no bufferization: one-shot-bufferize fails here.
  func.func @softmax_exp(%x: tensor<128xf32>) -> tensor<128xf32> {
    %0 = math.exp %x : tensor<128xf32>
    return %0 : tensor<128xf32>
  }
  transform.named_sequence private @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %matmuls = transform.structured.match ops{["linalg.matmul"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %tiled, %loops:3 = transform.structured.tile_using_for %matmuls tile_sizes [32, 32, 16]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
