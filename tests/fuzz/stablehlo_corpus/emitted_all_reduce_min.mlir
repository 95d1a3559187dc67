module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<f64>) -> tensor<f64> {
    %0 = "stablehlo.all_reduce"(%arg0) ({
      ^bb0(%1: tensor<f64>, %2: tensor<f64>):
        %3 = "stablehlo.minimum"(%1, %2) : (tensor<f64>, tensor<f64>) -> tensor<f64>
        "stablehlo.return"(%3) : (tensor<f64>) -> ()
    }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<f64>) -> tensor<f64>
    return %0 : tensor<f64>
  }
}
