"""Every bundled paper gets a readable, distinct name."""

from __future__ import annotations

from assistant.naming import assign_names, describe, is_coined, method_name
from assistant.papers import load_papers, seed_files

EXPECTED = {
    "RIGNO", "CSBrain", "REVE", "SynBrain", "NeuroPaint", "MixSignGraph", "HetSyn", "EVNets", "POCO", "EvoBrain",
    "SPINT", "BigMaQ", "CodeBrain", "RaCO-DP", "MiCRo", "HEIST", "CityLens", "STEER", "Meta-PCN", "DeepSADR",
}


def seed_papers():
    return assign_names(load_papers(seed_files()).papers)


def test_all_38_seeds_have_distinct_names() -> None:
    papers = seed_papers()
    names = [p.name for p in papers]
    assert len(papers) == 38
    assert len({n.casefold() for n in names}) == 38
    assert EXPECTED <= set(names)


def test_papers_naming_no_method_get_short_descriptions() -> None:
    descriptive = [p for p in seed_papers() if not p.alias]
    assert descriptive, "the AI-debate study names no method"
    for paper in descriptive:
        words = paper.name.split()
        assert 2 <= len(words) <= 6, paper.name
        assert paper.name[0].isupper()
        assert all(w.casefold() in paper.abstract.casefold() for w in words), paper.name
    debate = next(p for p in descriptive if "debate" in p.abstract and "judges" in p.abstract)
    assert "debate" in debate.name.casefold()


def test_method_patterns() -> None:
    assert method_name("Our model, termed RIGNO, is tested on PDEs.") == "RIGNO"
    assert method_name("We present REVE (Representation for EEG with Versatile Embeddings), a model.") == "REVE"
    assert method_name("we introduce Early Vision Networks (EVNets), a new class of CNNs.") == "EVNets"
    assert method_name("we propose an end-to-end graph neural network (GNN) based operator.") == ""
    assert describe("We present a large-scale audit of convergent learning, spanning models.") == (
        "Large-scale audit of convergent learning"
    )


def test_coined_tokens() -> None:
    assert all(is_coined(t) for t in ["CSBrain", "RaCO-DP", "Meta-PCN", "POCO", "SnS"])
    assert not any(is_coined(t) for t in ["Early", "Stimulus-Evoked", "EEG", "LLMs", "a"])


def test_title_wins_and_duplicates_get_suffixes() -> None:
    papers = load_papers(seed_files()).papers[:2]
    from dataclasses import replace

    titled = [replace(papers[0], title="Same Title"), replace(papers[1], title="Same Title")]
    named = assign_names(titled)
    assert named[0].name != named[1].name
    assert all(n.name.startswith("Same Title") for n in named)
