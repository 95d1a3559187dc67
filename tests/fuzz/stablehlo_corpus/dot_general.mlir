// dot_general with a batch dimension and contracting dimensions that are not the last of
// lhs and first of rhs: lhs [b=2, k=4, m=3] . rhs [b=2, n=5, k=4] -> [2, 3, 5]; a product
// contracting lhs dimension 0 (a transposed lhs); the pretty form.
module @dot_general {
  func.func public @main(%arg0: tensor<2x4x3xf32>, %arg1: tensor<2x5x4xf32>, %arg2: tensor<4x3xf32>, %arg3: tensor<4x2xf32>) -> (tensor<2x3x5xf32>, tensor<3x2xf32>, tensor<2x3x5xf32>) {
    %0 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [2]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<2x4x3xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
    %1 = "stablehlo.dot_general"(%arg2, %arg3) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>} : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
    %2 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [1] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x4x3xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
    return %0, %1, %2 : tensor<2x3x5xf32>, tensor<3x2xf32>, tensor<2x3x5xf32>
  }
}
