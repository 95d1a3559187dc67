module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1xf64>, %arg1: tensor<i32>, %arg2: tensor<f64>) -> tensor<1xf64> {
    %0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.constant dense<0> : tensor<i32>
    %2 = "stablehlo.clamp"(%0, %arg1, %1) : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = "stablehlo.scatter"(%arg0, %2, %arg2) ({
      ^bb0(%4: tensor<f64>, %5: tensor<f64>):
        %6 = "stablehlo.add"(%4, %5) : (tensor<f64>, tensor<f64>) -> tensor<f64>
        "stablehlo.return"(%6) : (tensor<f64>) -> ()
    }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 0>} : (tensor<1xf64>, tensor<i32>, tensor<f64>) -> tensor<1xf64>
    return %3 : tensor<1xf64>
  }
}
