module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1xi64>) -> tensor<1xi64> {
    %0 = "stablehlo.concatenate"(%arg0) {dimension = 0 : i64} : (tensor<1xi64>) -> tensor<1xi64>
    return %0 : tensor<1xi64>
  }
}
