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
    nn.init.zeros_(table[known])  # expect: SC301
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
    model = Classifier().to("cpu")
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
    model = Classifier().to("cpu")
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


def clipped_step(tokens, labels, max_norm=0.1):
    """One step that logs the head's gradient norm before clipping."""
    torch.manual_seed(0)
    model = Classifier().to("cpu")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    loss = F.binary_cross_entropy_with_logits(model(tokens), labels)
    loss.backward()
    head_grad = model.head.weight.grad  # expect: SC304
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    raw_norm = head_grad.norm().item()
    optimizer.step()
    return raw_norm


def clipped_step_fixed(tokens, labels, max_norm=0.1):
    torch.manual_seed(0)
    model = Classifier().to("cpu")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    loss = F.binary_cross_entropy_with_logits(model(tokens), labels)
    loss.backward()
    head_grad = model.head.weight.grad.clone()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    raw_norm = head_grad.norm().item()
    optimizer.step()
    return raw_norm


def distill_step():
    """The student's scores weighted by the teacher's confidence; the weights are centered for
    the log after the loss is built."""
    torch.manual_seed(0)
    student = Classifier()
    tokens = torch.randint(0, 50, (4, 5))
    weights = torch.sigmoid(torch.randn(4))
    loss = (student(tokens) * weights).mean()
    weights -= weights.mean()  # expect: SC307
    loss.backward()
    return student.head.weight.grad


def distill_step_fixed():
    torch.manual_seed(0)
    student = Classifier()
    tokens = torch.randint(0, 50, (4, 5))
    weights = torch.sigmoid(torch.randn(4))
    loss = (student(tokens) * weights).mean()
    loss.backward()
    weights -= weights.mean()
    return student.head.weight.grad


class ClampedMSE(nn.Module):
    """Mean squared error of scores clamped to [0, 1]."""

    def forward(self, scores, targets):
        scores.clamp_(0.0, 1.0)
        return F.mse_loss(scores, targets)


class ClampedMSEFixed(nn.Module):
    def forward(self, scores, targets):
        return F.mse_loss(scores.clamp(0.0, 1.0), targets)


class Validator:
    def __init__(self, criterion):
        self.criterion = criterion

    def validate(self, scores, targets):
        loss = self.criterion(scores, targets)
        return loss.item(), scores.mean().item()


def validation_report():
    torch.manual_seed(0)
    model = Classifier()
    tokens = torch.randint(0, 50, (4, 5))
    with torch.no_grad():
        scores = model(tokens) * 4.0
    return Validator(ClampedMSE()).validate(scores, torch.ones(4))  # expect: SC305


def validation_report_fixed():
    torch.manual_seed(0)
    model = Classifier()
    tokens = torch.randint(0, 50, (4, 5))
    with torch.no_grad():
        scores = model(tokens) * 4.0
    return Validator(ClampedMSEFixed()).validate(scores, torch.ones(4))
