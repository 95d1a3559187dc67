module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<f64>) -> tensor<f64> {
    %0 = "stablehlo.log"(%arg0) : (tensor<f64>) -> tensor<f64>
    return %0 : tensor<f64>
  }
}
