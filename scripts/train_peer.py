"""The peer of `damas bench train`: the same network and training step in PyTorch on the CPU.

The network is Damas Zero's (crates/nn/src/network.rs): a 3x3 stem, `blocks` residual blocks
of two 3x3 convolutions with batch norm, a policy head (1x1 convolution to 4 channels, a linear
layer to squares x squares logits) and a value head (1x1 convolution to 2 channels, 64 hidden
units, win/draw/loss logits, and the auxiliary outputs the step leaves untrained). The step is
the trainer's: policy cross-entropy against a visit distribution plus win/draw/loss
cross-entropy, Adam (epsilon 1e-8) with an L2 penalty of 1e-4 added to the gradients, learning
rate 1e-3. Inputs and targets are random with the shapes and sparsity of real ones.

Prints one line: `samples_per_second <float>`.
"""

import argparse
import time

import torch
from torch import nn
import torch.nn.functional as F

INPUT_PLANES = 19
POLICY_CHANNELS = 4
VALUE_HIDDEN = 64
AUX_OUTPUTS = 2


class Unit(nn.Module):
    def __init__(self, inputs, outputs, kernel):
        super().__init__()
        self.conv = nn.Conv2d(inputs, outputs, kernel, padding="same", bias=False)
        self.norm = nn.BatchNorm2d(outputs, eps=1e-5, momentum=0.1)

    def forward(self, x):
        return self.norm(self.conv(x))


class Block(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.first = Unit(channels, channels, 3)
        self.second = Unit(channels, channels, 3)

    def forward(self, x):
        return F.relu(self.second(F.relu(self.first(x))) + x)


class Network(nn.Module):
    def __init__(self, blocks, channels, height, width, squares):
        super().__init__()
        area = height * width
        self.stem = Unit(INPUT_PLANES, channels, 3)
        self.tower = nn.Sequential(*[Block(channels) for _ in range(blocks)])
        self.policy_conv = Unit(channels, POLICY_CHANNELS, 1)
        self.policy_fc = nn.Linear(POLICY_CHANNELS * area, squares * squares)
        self.value_conv = Unit(channels, 2, 1)
        self.value_hidden = nn.Linear(2 * area, VALUE_HIDDEN)
        self.value_out = nn.Linear(VALUE_HIDDEN, 3)
        self.aux_out = nn.Linear(VALUE_HIDDEN, AUX_OUTPUTS)

    def forward(self, x):
        x = self.tower(F.relu(self.stem(x)))
        policy = self.policy_fc(F.relu(self.policy_conv(x)).flatten(1))
        hidden = F.relu(self.value_hidden(F.relu(self.value_conv(x)).flatten(1)))
        return policy, self.value_out(hidden)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--blocks", type=int, default=4)
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--height", type=int, default=8)
    parser.add_argument("--width", type=int, default=8)
    parser.add_argument("--squares", type=int, default=32)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    net = Network(args.blocks, args.channels, args.height, args.width, args.squares)
    net.train()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3, eps=1e-8, weight_decay=1e-4)
    n, policy_len = args.batch, args.squares * args.squares
    inputs = (torch.rand(n, INPUT_PLANES, args.height, args.width) < 0.2).float()
    # A visit distribution over a few legal moves per position, as the search's targets are.
    policy = torch.zeros(n, policy_len)
    moves = torch.randint(0, policy_len, (n, 8))
    policy.scatter_(1, moves, torch.rand(n, 8))
    policy /= policy.sum(1, keepdim=True)
    wdl = F.one_hot(torch.randint(0, 3, (n,)), 3).float()

    def step():
        optimizer.zero_grad(set_to_none=True)
        policy_logits, value_logits = net(inputs)
        policy_loss = -(F.log_softmax(policy_logits, 1) * policy).sum(1).mean()
        value_loss = -(F.log_softmax(value_logits, 1) * wdl).sum(1).mean()
        (policy_loss + value_loss).backward()
        optimizer.step()

    step()
    start = time.perf_counter()
    for _ in range(args.steps):
        step()
    seconds = time.perf_counter() - start
    print(f"samples_per_second {args.steps * n / seconds:.1f}")


if __name__ == "__main__":
    main()
