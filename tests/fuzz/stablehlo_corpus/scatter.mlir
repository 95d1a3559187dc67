// scatter: rows added into a table at repeated ids (add body), and rows stored (the body
// returns its second argument: the update), where the last of two equal ids wins.
module @scatter {
  func.func public @main(%arg0: tensor<5x3xf32>, %arg1: tensor<3x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xf32>) {
    %ids = stablehlo.constant dense<[[3], [0], [3]]> : tensor<3x1xi32>
    %0 = "stablehlo.scatter"(%arg0, %ids, %arg1) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<5x3xf32>, tensor<3x1xi32>, tensor<3x3xf32>) -> tensor<5x3xf32>
    %1 = "stablehlo.scatter"(%arg0, %ids, %arg1) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      stablehlo.return %b : tensor<f32>
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<5x3xf32>, tensor<3x1xi32>, tensor<3x3xf32>) -> tensor<5x3xf32>
    return %0, %1 : tensor<5x3xf32>, tensor<5x3xf32>
  }
}
