"""The embedded model's server: llama-cpp-python's own OpenAI server, reading
each prompt for its last token's logits only.

Run as ``python -m assistant.llama_server`` with ``llama_cpp.server``'s
arguments (``assistant.local`` starts it). Why not that server as it is:
it keeps ``logits_all`` on, and must, because llama-cpp-python refuses
log-probabilities without it and the refusal check asks for them (P(yes),
``llm.OpenAICompatible._yes_probability``). With it on, every prompt token's
logits are computed over the 151,936-token vocabulary and copied into
``Llama.scores``: TTFT p50 3.5 s with them, 3.1 s without, on 2 cores
(``eval/bench_local.py``, 2026-12-04). Sampling reads
the context's last logits, and the log-probabilities of a completion read
the rows of its last prompt token and of the tokens it generates, each the
last of its batch; only a prompt echoed back with log-probabilities reads
the others, which no request of ours asks for. So each batch's last row is
the one computed and stored; the other prompt rows keep stale values.

Pinned llama-cpp-python (0.3.36): ``eval`` below is its ``Llama.eval`` with
only the last token of each batch asking for logits;
``tests/test_local.py`` checks that the logits it stores are the
library's.
"""

from __future__ import annotations

from collections.abc import Sequence

import llama_cpp
import numpy as np
from llama_cpp.server.__main__ import main


def eval_last_logits(self: llama_cpp.Llama, tokens: Sequence[int]) -> None:
    """``Llama.eval``, computing and storing logits for each batch's last token only."""
    self._ctx.kv_cache_seq_rm(-1, self.n_tokens, -1)
    for i in range(0, len(tokens), self.n_batch):
        batch = tokens[i: i + self.n_batch]
        n_past, n_tokens = self.n_tokens, len(batch)
        self._batch.set_batch(batch=batch, n_past=n_past, logits_all=False)
        self._ctx.decode(self._batch)
        self.input_ids[n_past: n_past + n_tokens] = batch
        self.scores[n_past + n_tokens - 1, :] = np.ctypeslib.as_array(self._ctx.get_logits(),
                                                                     shape=(self._n_vocab,))
        self.n_tokens += n_tokens
        self._requires_eval = False


def patch() -> None:
    """Every ``Llama`` of this process reads prompts with ``eval_last_logits``."""
    llama_cpp.Llama.eval = eval_last_logits  # type: ignore[method-assign]


if __name__ == "__main__":
    patch()
    main()
