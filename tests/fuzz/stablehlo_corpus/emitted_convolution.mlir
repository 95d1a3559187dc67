module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1x2xf64>, %arg1: tensor<2x2xf64>) -> tensor<1x2xf64> {
    %0 = "stablehlo.convolution"(%arg0, %arg1) {dimension_numbers = #stablehlo.conv<[b, f]x[i, o]->[b, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x2xf64>, tensor<2x2xf64>) -> tensor<1x2xf64>
    return %0 : tensor<1x2xf64>
  }
}
