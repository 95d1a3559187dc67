module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i64>, %arg1: tensor<2xi64>) -> tensor<i32> {
    %0 = "stablehlo.reshape"(%arg0) : (tensor<i64>) -> tensor<1xi64>
    %1 = "stablehlo.concatenate"(%0, %arg1) {dimension = 0 : i64} : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
    %2 = "stablehlo.bitcast_convert"(%1) : (tensor<3xi64>) -> tensor<3xui64>
    %3:2 = "stablehlo.rng_bit_generator"(%2) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<3xui64>) -> (tensor<3xui64>, tensor<i32>)
    return %3#1 : tensor<i32>
  }
}
