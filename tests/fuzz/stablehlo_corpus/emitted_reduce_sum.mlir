module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = "stablehlo.reduce"(%arg0, %0) ({
      ^bb0(%2: tensor<i32>, %3: tensor<i32>):
        %4 = "stablehlo.add"(%2, %3) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%4) : (tensor<i32>) -> ()
    }) {dimensions = array<i64>} : (tensor<i32>, tensor<i32>) -> tensor<i32>
    return %1 : tensor<i32>
  }
}
