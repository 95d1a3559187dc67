// all_reduce over 2 replicas: a sum over both, a maximum with the group written in the
// other order, a minimum in singleton groups (each replica keeps its own value).
module @all_reduce attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<3xi32>) -> (tensor<4xf32>, tensor<3xi32>, tensor<4xf32>) {
    %0 = "stablehlo.all_reduce"(%arg0) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "stablehlo.all_reduce"(%arg1) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %m = stablehlo.maximum %a, %b : tensor<i32>
      stablehlo.return %m : tensor<i32>
    }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<3xi32>) -> tensor<3xi32>
    %2 = "stablehlo.all_reduce"(%arg0) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.minimum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    return %0, %1, %2 : tensor<4xf32>, tensor<3xi32>, tensor<4xf32>
  }
}
