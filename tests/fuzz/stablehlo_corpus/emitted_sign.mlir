module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32>) -> tensor<i32> {
    %0 = "stablehlo.sign"(%arg0) : (tensor<i32>) -> tensor<i32>
    return %0 : tensor<i32>
  }
}
