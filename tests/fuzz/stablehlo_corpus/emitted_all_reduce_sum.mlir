module @main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i64>) -> tensor<i64> {
    %0 = "stablehlo.all_reduce"(%arg0) ({
      ^bb0(%1: tensor<i64>, %2: tensor<i64>):
        %3 = "stablehlo.add"(%1, %2) : (tensor<i64>, tensor<i64>) -> tensor<i64>
        "stablehlo.return"(%3) : (tensor<i64>) -> ()
    }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<i64>) -> tensor<i64>
    return %0 : tensor<i64>
  }
}
