module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i64>) -> tensor<i64> {
    %0 = "stablehlo.abs"(%arg0) : (tensor<i64>) -> tensor<i64>
    return %0 : tensor<i64>
  }
}
