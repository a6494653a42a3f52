"""A small character-level GPT (decoder-only transformer), as an epochcost model file (PyTorch).

    epochcost models --model-file assets/examples/torch_char_lm.py
    epochcost run --model-file assets/examples/torch_char_lm.py --batch-size 32
"""

import torch
from torch import nn

NAME = "char-gpt-small"
FRAMEWORK = "torch"
VOCAB = 65  # the characters of Tiny Shakespeare
BLOCK = 128  # context length in characters
INPUT_SHAPE = (BLOCK,)  # one sequence of character ids
INPUT_DTYPE = "int64"  # ids are drawn from 0..VOCAB-1 (the tokens target's range)
TARGET = ("tokens", VOCAB)  # next character at each position; outputs (batch, BLOCK, VOCAB)
EPOCH_SAMPLES = 1_003_854 // BLOCK  # Tiny Shakespeare's training characters, in sequences


class CharGPT(nn.Module):
    def __init__(self, vocab: int, block: int, width: int = 128, layers: int = 4, heads: int = 4):
        super().__init__()
        self.token = nn.Embedding(vocab, width)
        self.position = nn.Embedding(block, width)
        layer = nn.TransformerEncoderLayer(
            width, heads, 4 * width, dropout=0.1, activation="gelu", batch_first=True,
            norm_first=True,
        )
        self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        mask = torch.triu(torch.full((block, block), float("-inf")), diagonal=1)
        self.register_buffer("causal_mask", mask)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        steps = ids.shape[1]
        positions = torch.arange(steps, device=ids.device)
        x = self.token(ids) + self.position(positions)
        x = self.blocks(x, mask=self.causal_mask[:steps, :steps], is_causal=True)
        return self.head(self.norm(x))


def build_model(batch_size, hints):
    return CharGPT(VOCAB, BLOCK)
