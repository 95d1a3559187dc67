#!/usr/bin/env python3
"""A small CNN on Fashion-MNIST with seam from Python: two conv-BatchNorm-ReLU-pool blocks
and a linear classifier, AdamW, batches of 64, one seam.sync() per step.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/cnn.py [--epochs N] [--steps N]
"""

import argparse
import time

import numpy as np

import seam
import seam.nn as nn
import seam.nn.functional as F

BATCH = 64


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.dropout = nn.Dropout(0.2)
        self.classifier = nn.Linear(32 * 7 * 7, 10)

    def forward(self, x):
        x = self.features(x.reshape(-1, 1, 28, 28))
        return self.classifier(self.dropout(x.flatten(1)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    parser.add_argument("--data", default=seam.data.FASHION_MNIST_DIR)
    args = parser.parse_args()

    train_x, train_y = seam.data.fashion_mnist(True, args.data)
    test_x, test_y = seam.data.fashion_mnist(False, args.data)
    seam.manual_seed(7)
    model = Cnn()
    optimizer = seam.optim.AdamW(model.parameters(), lr=2e-3)
    order = np.random.default_rng(7)
    done, start = 0, time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        model.train()
        perm = order.permutation(len(train_x))
        losses = []
        for s in range(len(train_x) // BATCH):
            rows = perm[s * BATCH:(s + 1) * BATCH]
            optimizer.zero_grad()
            loss = F.cross_entropy(model(seam.tensor(train_x[rows])), seam.tensor(train_y[rows]))
            loss.backward()
            optimizer.step()
            seam.sync()
            losses.append(loss)
            done += 1
            if args.steps and done >= args.steps:
                break
        mean = sum(l.item() for l in losses) / len(losses)
        print(f"epoch {epoch}: mean loss {mean:.4f} ({time.perf_counter() - start:.1f} s)", flush=True)
        if args.steps and done >= args.steps:
            break
    model.eval()
    correct = 0
    with seam.no_grad():
        for i in range(0, len(test_x), 500):
            pred = model(seam.tensor(test_x[i:i + 500])).argmax(1)
            correct += int((pred == seam.tensor(test_y[i:i + 500]).long()).long().sum())
    print(f"test accuracy: {correct / len(test_x):.4f}")


if __name__ == "__main__":
    main()
