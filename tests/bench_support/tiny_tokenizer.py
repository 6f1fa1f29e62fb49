"""A tiny word-level tokenizer written at test time with the `tokenizers` package (no download).

Every whitespace-separated word is one token ("w" has its own id, anything else is [UNK]), as
the calibrated server counts them: its " w w w w" chunk is four tokens.
"""

from __future__ import annotations


def write_tiny_tokenizer(path: str) -> str:
    from tokenizers import Tokenizer, models, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel({"w": 0, "[UNK]": 1}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.save(path)
    return path
