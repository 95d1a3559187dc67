module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.constant dense<0x00000000> : tensor<f32>
    %1 = "stablehlo.select_and_scatter"(%arg0, %arg1, %0) ({
      ^bb0(%2: tensor<f32>, %3: tensor<f32>):
        %4 = "stablehlo.compare"(%2, %3) {comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
        "stablehlo.return"(%4) : (tensor<i1>) -> ()
    }, {
      ^bb0(%5: tensor<f32>, %6: tensor<f32>):
        %7 = "stablehlo.add"(%5, %6) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%7) : (tensor<f32>) -> ()
    }) {window_dimensions = array<i64>} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>
    return %1 : tensor<f32>
  }
}
