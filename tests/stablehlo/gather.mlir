// gather: embedding rows by i32 ids (index_vector_dim past the last dimension); pairs of
// indices mapped to operand dimensions in swapped order (start_index_map = [1, 0]); a
// 2x2 window whose start is clamped into the operand.
module @gather {
  func.func public @main(%arg0: tensor<5x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<2x2x2xf32>) {
    %ids = stablehlo.constant dense<[4, 0, 2, 0]> : tensor<4xi32>
    %0 = "stablehlo.gather"(%arg0, %ids) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>} : (tensor<5x3xf32>, tensor<4xi32>) -> tensor<4x3xf32>
    %pairs = stablehlo.constant dense<[[0, 2], [1, 0], [2, 4]]> : tensor<3x2xi64>
    %1 = "stablehlo.gather"(%arg0, %pairs) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [1, 0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>, indices_are_sorted = false} : (tensor<5x3xf32>, tensor<3x2xi64>) -> tensor<3xf32>
    %starts = stablehlo.constant dense<[[3, 1], [9, -2]]> : tensor<2x2xi32>
    %2 = "stablehlo.gather"(%arg0, %starts) {dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 2, 2>} : (tensor<5x3xf32>, tensor<2x2xi32>) -> tensor<2x2x2xf32>
    return %0, %1, %2 : tensor<4x3xf32>, tensor<3xf32>, tensor<2x2x2xf32>
  }
}
