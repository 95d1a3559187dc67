module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xi1>, %arg1: tensor<i64>, %arg2: tensor<1xi1>) -> tensor<3xi1> {
    %0 = stablehlo.constant dense<0> : tensor<i64>
    %1 = stablehlo.constant dense<2> : tensor<i64>
    %2 = "stablehlo.clamp"(%0, %arg1, %1) : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<i64>
    %3 = "stablehlo.scatter"(%arg0, %2, %arg2) ({
      ^bb0(%4: tensor<i1>, %5: tensor<i1>):
        "stablehlo.return"(%5) : (tensor<i1>) -> ()
    }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 0>} : (tensor<3xi1>, tensor<i64>, tensor<1xi1>) -> tensor<3xi1>
    return %3 : tensor<3xi1>
  }
}
