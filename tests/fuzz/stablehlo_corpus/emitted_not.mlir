module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i1>) -> tensor<i1> {
    %0 = "stablehlo.not"(%arg0) : (tensor<i1>) -> tensor<i1>
    return %0 : tensor<i1>
  }
}
