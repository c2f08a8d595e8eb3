"""Whether the papers a topic search found are about the topic at all.

A topic no paper covers ("federated learning, e.g. training across
phones", "quantum machine learning", "大模型量化") still has nearest papers,
and the search's cut-offs (fused score, cosine, most of the topic's words
unknown) let them through when the topic shares common words with them
("training", "model", "learning"): the list quoted LLM papers for
quantization. Words and cosines cannot tell "about" from "near"; the model
can, asked of one abstract at a time. On dev, the 1.5B model's P(yes) that
a paper is about the topic was 0.13–0.42 for the best of the first three
papers of each of the 5 absent topics the search let through, and 0.47 or
more for every one of the 43 answerable topics.

The model is asked only when a word of the topic is in no indexed paper
(``PaperRetriever.unknown_words``): a topic whose every word some paper
uses is taken as the search found it. Each of the 5 absent dev topics has
such a word; 13 of the 43 answerable ones do, so most summaries and lists
cost no model call here. Asking stops at the first paper judged on topic
(one call, ≈ 3.5 s on 2 cores, for an answerable topic).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from assistant import prompts
from assistant.retrieve import Hit


def about_topic(topic: str, hits: Sequence[Hit], judge: Callable[[str], float | None], most: int,
                threshold: float) -> bool:
    """Whether one of the first ``most`` papers of ``hits`` is about
    ``topic``: P(yes) from ``judge`` (the model's, for one prompt) at least
    ``threshold``, asked paper by paper until one is. No verdict (None: the
    model failed) keeps the papers: an outage never becomes a refusal."""
    for hit in hits[:most]:
        said = judge(prompts.ABOUT_TOPIC.format(title=hit.paper.title or hit.paper.name,
                                                abstract=hit.paper.abstract, topic=topic))
        if said is None or said >= threshold:
            return True
    return False
