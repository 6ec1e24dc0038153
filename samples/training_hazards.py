"""A small text classifier's training code with the aliasing hazards of real bug reports, each
beside its fix: the best weights kept as a live state_dict, an embedding initialiser that fills
a copy, and a loss that edits a sigmoid output autograd saved."""

import copy

import torch
import torch.nn.functional as F
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 8)
        self.head = nn.Linear(8, 1)

    def forward(self, tokens):
        return self.head(self.embed(tokens).mean(1)).squeeze(1)


class SmoothedBCE(nn.Module):
    """Binary cross-entropy on probabilities kept away from 0 and 1."""

    def forward(self, logits, targets):
        probs = torch.sigmoid(logits)
        probs *= 0.98  # expect: SC307
        probs += 0.01
        return F.binary_cross_entropy(probs, targets)


class SmoothedBCEFixed(nn.Module):
    def forward(self, logits, targets):
        probs = torch.sigmoid(logits) * 0.98 + 0.01
        return F.binary_cross_entropy(probs, targets)


def evaluate(model, batches):
    with torch.no_grad():
        return sum(F.binary_cross_entropy_with_logits(model(x), y).item() for x, y in batches)


def init_known_words():
    model = Classifier()
    known = torch.tensor([3, 7, 11])
    table = model.embed.weight
    with torch.no_grad():
        table[known].zero_()  # expect: SC301
    return model


def init_known_words_fixed():
    model = Classifier()
    known = torch.tensor([3, 7, 11])
    table = model.embed.weight
    with torch.no_grad():
        table[known] = 0.0
    return model


def train(batches, epochs=6):
    torch.manual_seed(0)
    model = Classifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    best_loss = float("inf")
    best_state = model.state_dict()  # expect: SC304
    for epoch in range(epochs):
        for tokens, labels in batches:
            optimizer.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(tokens), labels)
            loss.backward()
            optimizer.step()
        val_loss = evaluate(model, batches)
        if val_loss < best_loss:
            best_loss = val_loss
    model.load_state_dict(best_state)
    return model


def train_fixed(batches, epochs=6):
    torch.manual_seed(0)
    model = Classifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    best_loss = float("inf")
    best_state = copy.deepcopy(model.state_dict())
    for epoch in range(epochs):
        for tokens, labels in batches:
            optimizer.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(tokens), labels)
            loss.backward()
            optimizer.step()
        val_loss = evaluate(model, batches)
        if val_loss < best_loss:
            best_loss = val_loss
            best_state = copy.deepcopy(model.state_dict())
    model.load_state_dict(best_state)
    return model


def smoothed_step():
    torch.manual_seed(0)
    model = Classifier()
    tokens = torch.randint(0, 50, (4, 5))
    labels = torch.ones(4)
    loss = SmoothedBCE()(model(tokens), labels)
    loss.backward()
    return model.head.weight.grad


def smoothed_step_fixed():
    torch.manual_seed(0)
    model = Classifier()
    tokens = torch.randint(0, 50, (4, 5))
    labels = torch.ones(4)
    loss = SmoothedBCEFixed()(model(tokens), labels)
    loss.backward()
    return model.head.weight.grad
