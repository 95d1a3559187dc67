module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1xf64>) -> tensor<1xf64> {
    %0 = stablehlo.constant dense<0x0000000000000000> : tensor<f64>
    %1 = "stablehlo.reduce_window"(%arg0, %0) ({
      ^bb0(%2: tensor<f64>, %3: tensor<f64>):
        %4 = "stablehlo.add"(%2, %3) : (tensor<f64>, tensor<f64>) -> tensor<f64>
        "stablehlo.return"(%4) : (tensor<f64>) -> ()
    }) {window_dimensions = array<i64: 1>} : (tensor<1xf64>, tensor<f64>) -> tensor<1xf64>
    return %1 : tensor<1xf64>
  }
}
