"""The compare table's default aspects: each paper's abstract sentence for each.

Filled extractively, never by the model, so every cell is the paper's own
words or "not stated". Abstracts follow a known arc (problem, then "we
propose", then data and results), so a sentence qualifies for an aspect by
its cue words and its place relative to the "we propose" sentence; a
small model asked to fill a table mixes papers up.
"""

from __future__ import annotations

import re

from assistant.mentions import says

_INTRO = re.compile(r"\b(?:we|this (?:paper|work|study|article))\b[^.]{0,160}?\b(?:propos(?:e|es|ed|ing)\b|introduc(?:e|es|ed|ing)\b|present|develop|design|build|formalize|study|investigate)", re.IGNORECASE)
#: A sentence whose subject is the authors ("Here, we leveraged…", "We relate…"): the paper's own
#: step where no sentence proposes or introduces anything.
_WE = re.compile(r"^(?:[^,.]{0,40},\s*|here\s+)?we\b", re.IGNORECASE)
#: Aspect -> (cue pattern, where it may occur: "before"/"after" the intro sentence, or "any").
ASPECTS: dict[str, tuple[re.Pattern[str], str]] = {
    "problem": (re.compile(r"\b(?:challeng|however|lack|struggle|limit|remain|fail|overlook|difficult|gap|problem|unclear|hinder|bottleneck|rare|underexplored)", re.IGNORECASE), "before"),
    "approach": (_INTRO, "any"),
    "data": (re.compile(r"\b(?:datasets?|data\b(?!-)|recordings|subjects|hours|corpus|benchmarks?|cells|neurons|images|scenes|samples|cities|participants|judges|tissues)", re.IGNORECASE), "after"),
    "evaluation and results": (re.compile(r"\b(?:outperform|state-of-the-art|achiev|improv|surpass|accuracy|results? (?:show|demonstrate|reveal)|experiments? (?:show|demonstrate|reveal|on)|we (?:\w+ly )?(?:find|show|demonstrate))", re.IGNORECASE), "after"),
    "limitations or scope": (re.compile(r"\b(?:(?:is|are) limited to|restricted to|only (?:works|applies|considers)|cannot|future work|we leave|not yet|does not (?:generalize|scale|apply)|fails? to)", re.IGNORECASE), "after"),
}


#: Words that state a common user aspect without naming it: a sentence
#: saying "outperforms LSTM cores" states the baseline, "mean average
#: precision" the metric. Keyed by the aspect's word (stemmed, as
#: ``lexical.tokenize`` gives it); the embedding alone misses these.
ASPECT_CUES: dict[str, re.Pattern[str]] = {
    stem: re.compile(rf"\b(?:{cues})", re.IGNORECASE) for stem, cues in {
        "architectur": r"architecture|transformer|network|encoder|decoder|backbone|mamba|convolution|attention|"
                       r"autoencoder|\w*gnn|mlp|layers?\b",
        "baselin": r"baselines?|outperform|surpass|compared (?:to|with)|beats?\b|better than|than (?:existing|prior)",
        "metric": r"metrics?|accuracy|error|precision|recall|f1\b|auroc|auc\b|n?rmse|n?mse\b|bleu|perplexity|"
                  r"correlation|score",
        "task": r"tasks?\b|prediction|classification|detection|recognition|segmentation|annotation|imputation|"
                r"forecasting|generation\b|retrieval\b|translation\b",
        "benchmark": r"benchmarks?|datasets?|suites?\b",
        "object": r"objectives?|loss\b|masked|contrastive|autoencod|reconstruct|next-token|denois",
        "paramet": r"parameters?|\d+(?:\.\d+)?\s?[MB]\b|billion|million",
        "speci": r"humans?\b|mice|mouse|rats?\b|macaques?|monkeys?|primates?|mammal|rodents?|zebrafish|drosophila|"
                 r"flies\b|songbirds?|birds?\b|worms?\b|c\. elegans|patients?\b|participants",
        "record": r"recordings?|eeg\b|meg\b|fmri|ecog|ieeg|emg\b|ecg\b|lfp|spikes?\b|spiking|electrophysiolog|"
                  r"calcium imaging|two-photon|neuropixels|electrodes?",
        "theoret": r"theor|prove[sn]?\b|proofs?\b|guarantee|bounds?\b|analytic|closed-form",
        "interpret": r"interpretab|probe[sd]?\b|probing|sparse autoencoders?|ablat|attribution|saliency|"
                     r"activation patching|circuits?\b|mechanistic|(?:individual|specific|single) neurons|"
                     r"neurons? (?:whose|that)|deactivat",
        "region": r"cortex|cortical|hippocamp|thalam|striat|cerebell|amygdala|prefrontal|basal ganglia|\bv1\b|"
                  r"brain (?:regions?|areas?)",
    }.items()
}


def aspect_sentences(sentences: list[str], name: str = "") -> dict[str, int | None]:
    """For one abstract (of the paper called ``name``): the index of its
    sentence for each aspect, or None. Among qualifying sentences the one
    with most cues wins; ties go to the one nearest the "we propose"
    sentence for the problem, the last one for results (abstracts close on
    their headline result), else the first; the approach is the sentence
    naming the paper where several propose something (see ``gist_sentence``)."""
    intro = _own_step(sentences)
    chosen: dict[str, int | None] = {}
    for aspect, (cue, where) in ASPECTS.items():
        # problem and approach sentences are not reused; one sentence may state both data and results
        taken = {chosen.get("problem"), chosen.get("approach")} - {None}
        allowed = [
            i for i in range(len(sentences))
            if i not in taken and (where == "any" or intro is None or (i < intro if where == "before" else i > intro))
        ]
        scored = [(len(cue.findall(sentences[i])), i) for i in allowed]
        scored = [(hits, i if aspect in ("problem", "evaluation and results") else -i) for hits, i in scored if hits]
        chosen[aspect] = abs(max(scored)[1]) if scored else None
    if intro is not None and (name or chosen["approach"] is None):  # "We relate a Hebbian STDP rule to …"
        gist = gist_sentence(sentences, name)
        if gist != chosen["problem"]:
            chosen["approach"] = gist
    return chosen


def _own_step(sentences: list[str]) -> int | None:
    """The first sentence saying what the paper does: one that proposes or
    introduces something, else the first one whose subject is "we" (3 of the
    38 seeds propose nothing in those words: "Here we leveraged a dataset of
    3.3 million neurons…")."""
    found = _first(_INTRO, sentences)
    return found if found is not None else _first(_WE, sentences)


def _first(pattern: re.Pattern[str], sentences: list[str]) -> int | None:
    """The index of the first sentence ``pattern`` finds, or None."""
    return next((i for i, s in enumerate(sentences) if pattern.search(s)), None)


def gist_sentence(sentences: list[str], name: str = "") -> int:
    """The sentence that says what the paper does: its "we propose"
    sentence, the one naming the paper where several propose something
    ("we study such problems under DP" ... "we develop RaCO-DP, a DP
    variant of SGDA": 5 of the 38 seeds open on a study or an analysis
    before the method they name), else the first one whose subject is
    "we", else the first one (abstracts that open with their claim)."""
    intros = [i for i, s in enumerate(sentences) if _INTRO.search(s)]
    named = [i for i in intros if name and says(sentences[i], name)]
    return (named or intros or [_first(_WE, sentences) or 0])[0]
