#!/usr/bin/env python3
"""Fashion-MNIST with seam from Python: the C++ example's MLP (784-256-128-10, ReLU), Adam at
1e-3 halved every epoch over the last four, batches of 128; each step records forward,
backward and the update, and one seam.sync() runs them as one program.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/fashion_mnist.py [--epochs N]

The data are Debian's dataset-fashion-mnist files (/usr/share/datasets/fashion-mnist).
The model's initial values (seam.manual_seed) and the epochs' orders (seam.data.Shuffler) are
the C++ example's draws (examples/fashion_mnist), so with the same --seed the two print the
same losses to the last bit (--print-losses).
"""

import argparse
import time

import numpy as np

import seam
import seam.nn as nn
import seam.nn.functional as F

BATCH = 128


class Mlp(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes, sizes[1:]))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = x.relu()
        return x


def accuracy(model, images, labels):
    correct = 0
    with seam.no_grad():
        for i in range(0, len(images), 1000):
            logits = model(seam.tensor(images[i:i + 1000]))
            correct += int((logits.argmax(1) == seam.tensor(labels[i:i + 1000]).long()).long().sum())
    return correct / len(images)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    parser.add_argument("--data", default=seam.data.FASHION_MNIST_DIR)
    parser.add_argument("--compile", action="store_true", help="run each step through seam.compile")
    parser.add_argument("--seed", type=int, default=42,
                        help="seed of the model's initial values and of the data order")
    parser.add_argument("--print-losses", action="store_true",
                        help="print each step's loss with 9 significant digits")
    parser.add_argument("--data-parallel", action="store_true",
                        help="split each batch over every device of the job (seam launch -n N)")
    args = parser.parse_args()

    train_x, train_y = seam.data.fashion_mnist(True, args.data)
    test_x, test_y = seam.data.fashion_mnist(False, args.data)
    seam.manual_seed(args.seed)
    model = Mlp([784, 256, 128, 10])
    optimizer = seam.optim.Adam(model.parameters(), lr=1e-3)

    def step(x, y):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    dp = seam.DataParallel() if args.data_parallel else None
    if dp is not None and BATCH % dp.replicas:
        raise SystemExit(f"--data-parallel: the batch of {BATCH} does not split over {dp.replicas} replicas")

    def dp_step(x, y):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step(data_parallel=dp)
        return dp.mean(loss)  # the whole batch's loss

    def batch(rows):
        if dp is None:
            return seam.tensor(train_x[rows]), seam.tensor(train_y[rows])
        per = BATCH // dp.replicas  # this process's rows: those of its replicas
        mine = rows[dp.first_replica * per:(dp.first_replica + dp.local_replicas) * per]
        return dp.shard(train_x[mine]), dp.shard(train_y[mine])

    run_step = dp_step if dp is not None else step
    run_step = seam.compile(run_step) if args.compile else run_step
    order = seam.data.Shuffler(args.seed)  # the C++ example's shuffle
    steps_per_epoch = len(train_x) // BATCH
    done = 0
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        if epoch > args.epochs - 4 and epoch > 1:
            optimizer.param_groups[0]["lr"] *= 0.5
        perm = order.permutation(len(train_x))
        loss_sum = 0.0
        losses = []
        for s in range(steps_per_epoch):
            rows = perm[s * BATCH:(s + 1) * BATCH]
            loss = run_step(*batch(rows))
            if not args.compile:
                seam.sync()
            losses.append(loss)
            done += 1
            if args.print_losses:
                value = float(dp.gather(loss)[0]) if dp else loss.item()
                print(f"step {done} loss {value:.9g}", flush=True)
            if args.steps and done >= args.steps:
                break
        loss_sum = sum(float(dp.gather(l)[0]) if dp else l.item() for l in losses)
        print(f"epoch {epoch}: mean loss {loss_sum / len(losses):.4f} "
              f"({time.perf_counter() - start:.1f} s)", flush=True)
        if args.steps and done >= args.steps:
            break
    if dp is not None:
        # Every replica holds the same parameters: a digest of each, and the test accuracy
        # from this process's copy.
        digest = [hash(tuple(np.concatenate([dp.gather(p)[r].ravel() for p in model.parameters()])
                             .view(np.uint32).tolist())) for r in range(dp.local_replicas)]
        print(f"rank {seam.process_index()}: parameter digests {digest}")
        with seam.no_grad():
            params = [dp.gather(p)[0] for p in model.parameters()]
        plain = Mlp([784, 256, 128, 10])
        plain.load_state_dict(dict(zip([n for n, _ in plain.named_parameters()],
                                       [seam.tensor(p) for p in params])))
        model = plain
    print(f"test accuracy: {accuracy(model, test_x, test_y):.4f}")
    if dp is None or seam.process_index() == 0:
        print(seam.metrics.report())


if __name__ == "__main__":
    main()
