"""A seq2seq encoder whose initial LSTM state is laid out batch-first.

batch_first=True changes the layout of the input and output only: h0 and c0
stay (num_layers * directions, batch, hidden) whatever the flag says.
"""

import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, vocab: int = 100, embed: int = 32, hidden: int = 64):
        super().__init__()
        self.embedding = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, batch_first=True)
        self.hidden = hidden

    def forward(self, tokens):
        x = self.embedding(tokens)
        h0 = torch.zeros(tokens.size(0), 1, self.hidden)
        c0 = torch.zeros(tokens.size(0), 1, self.hidden)
        out, (h, c) = self.lstm(x, (h0, c0))
        return out, h


class Decoder(nn.Module):
    def __init__(self, vocab: int = 100, embed: int = 32, hidden: int = 64):
        super().__init__()
        self.embedding = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, batch_first=True)
        self.project = nn.Linear(hidden, vocab)

    def forward(self, tokens, state):
        out, state = self.lstm(self.embedding(tokens), state)
        return self.project(out), state


def encode_batch():
    tokens = torch.randint(0, 100, (8, 12))
    return Encoder()(tokens)  # expect: SC113


def decode_step():
    # The decoder gets the state as the LSTM left it: (1, batch, hidden). No mistake here.
    tokens = torch.randint(0, 100, (8, 1))
    state = (torch.zeros(1, 8, 64), torch.zeros(1, 8, 64))
    logits, state = Decoder()(tokens, state)
    return logits
