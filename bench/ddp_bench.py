#!/usr/bin/env python3
"""PyTorch DDP's side of bench/data_parallel_bench.sh: the same medium MLP (784-512-512-10,
SGD lr 0.01, cross entropy, global batch 256, random normal inputs) on 1 process, or on N
processes under DistributedDataParallel over Gloo on 127.0.0.1, 1 thread per process.
Prints, per process, the same lines as bench/data_parallel_bench:
  images_per_s <global batch images per second over the timed steps>
  step_ms <mean step time>
Needs Debian's python3-torch (not part of CI). Usage:
  ddp_bench.py [--processes N] [--steps S] [--warmup W] [--bf16]
--bf16 registers DDP's bf16_compress_hook (gradients exchanged in bfloat16)."""
import argparse
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

IN, HIDDEN, CLASSES, BATCH = 784, 512, 10, 256


def model():
    return torch.nn.Sequential(
        torch.nn.Linear(IN, HIDDEN), torch.nn.ReLU(),
        torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.ReLU(),
        torch.nn.Linear(HIDDEN, CLASSES))


def run(rank, processes, port, steps, warmup, bf16):
    torch.set_num_threads(1)
    torch.manual_seed(3)
    net = model()
    if processes > 1:
        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = str(port)
        dist.init_process_group("gloo", rank=rank, world_size=processes)
        net = torch.nn.parallel.DistributedDataParallel(net)
        if bf16:
            # torch 1.13 (Debian 12) refuses this hook without CUDA 11+ and NCCL 2.10+.
            from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
            try:
                net.register_comm_hook(None, default_hooks.bf16_compress_hook)
            except (TypeError, RuntimeError) as error:
                print(f"[rank {rank}] bf16_compress_hook unavailable: {error}", flush=True)
                dist.destroy_process_group()
                return
    rows = BATCH // processes
    gen = torch.Generator().manual_seed(11 + rank)
    x = torch.randn(rows, IN, generator=gen)
    y = torch.arange(rows) % CLASSES
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    for _ in range(warmup):
        step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    seconds = time.perf_counter() - start
    prefix = f"[rank {rank}] " if processes > 1 else ""
    print(f"{prefix}images_per_s {BATCH * steps / seconds:.1f}", flush=True)
    print(f"{prefix}step_ms {1000 * seconds / steps:.3f}", flush=True)
    if processes > 1:
        dist.destroy_process_group()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--bf16", action="store_true")
    args = parser.parse_args()
    if args.processes < 1 or BATCH % args.processes != 0:
        sys.exit(f"ddp_bench: --processes must divide {BATCH}, got {args.processes}")
    if args.processes == 1:
        run(0, 1, 0, args.steps, args.warmup, False)
        return
    mp.spawn(run, args=(args.processes, free_port(), args.steps, args.warmup, args.bf16),
             nprocs=args.processes)


if __name__ == "__main__":
    main()
