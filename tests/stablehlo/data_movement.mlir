// broadcast_in_dim (operand dims to non-leading result dims), reshape, transpose by a
// permutation that is not its own inverse, slice (limit is an end index, not a size; a
// stride), concatenate along dimension 1, pad with negative low and interior padding.
module @data_movement {
  func.func public @main(%arg0: tensor<2x4xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<1x2xf32>, tensor<2x7xf32>, tensor<2x8xf32>, tensor<3x2x4xf32>) {
    %0 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 0, 2>} : (tensor<2x4xf32>) -> tensor<2x3x4xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<2x3x4xf32>
    %2 = stablehlo.add %0, %1 : tensor<2x3x4xf32>
    %3 = stablehlo.add %2, %arg2 : tensor<2x3x4xf32>
    %4 = "stablehlo.transpose"(%3) {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
    %5 = "stablehlo.slice"(%arg0) {start_indices = array<i64: 1, 1>, limit_indices = array<i64: 2, 4>, strides = array<i64: 1, 2>} : (tensor<2x4xf32>) -> tensor<1x2xf32>
    %6 = stablehlo.reshape %arg1 : (tensor<3xf32>) -> tensor<1x3xf32>
    %7 = "stablehlo.concatenate"(%6, %6) {dimension = 0 : i64} : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
    %8 = "stablehlo.concatenate"(%arg0, %7) {dimension = 1 : i64} : (tensor<2x4xf32>, tensor<2x3xf32>) -> tensor<2x7xf32>
    %9 = stablehlo.constant dense<-1.500000e+00> : tensor<f32>
    %10 = "stablehlo.pad"(%arg0, %9) {edge_padding_low = array<i64: 0, -1>, edge_padding_high = array<i64: 0, 2>, interior_padding = array<i64: 0, 1>} : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x8xf32>
    %11 = stablehlo.transpose %arg2, dims = [1, 0, 2] : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
    return %3, %4, %5, %8, %10, %11 : tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<1x2xf32>, tensor<2x7xf32>, tensor<2x8xf32>, tensor<3x2x4xf32>
  }
}
