module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xi64>, %arg1: tensor<2xi64>) -> tensor<4x2xi64> {
    %0 = "stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<>} : (tensor<4xi64>, tensor<2xi64>) -> tensor<4x2xi64>
    return %0 : tensor<4x2xi64>
  }
}
