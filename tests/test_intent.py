"""Routing a chat message to its path, by rules alone (no index, no model)."""

from __future__ import annotations

import pytest

from assistant.filters import parse_filters
from assistant.intent import (
    asked_aspects,
    follow_on,
    identifies,
    is_keyword_query,
    needs_context,
    route,
    topic_of,
    topic_scope,
)
from assistant.retrieve import Scope

NAMES = {"csbrain": 1, "reve": 2, "spint": 3, "poco": 4}


def named(text: str) -> list[int]:
    """The papers a text names, as the lexical index would say."""
    words = text.casefold().replace("?", " ").replace(",", " ").split()
    return list(dict.fromkeys(NAMES[w] for w in words if w in NAMES))


@pytest.mark.parametrize(("message", "kind"), [
    ("What is SPINT?", "ask"),
    ("How many EEG datasets was REVE pretrained on?", "ask"),
    ("Which paper proposes a new text-to-speech model?", "ask"),
    ("can you give me an overview of the EEG papers?", "summarize"),
    ("Summarize the work on spiking networks", "summarize"),
    ("what's out there on LLM agents", "summarize"),
    ("总结一下脑电基础模型的论文", "summarize"),
    ("which papers deal with PDE solvers?", "list"),
    ("Are there any papers on macaque behaviour?", "list"),
    ("ICLR 2026 的哪些论文研究脑电？", "list"),
    ("有没有关于扩散模型的论文？", "list"),  # "are there papers about diffusion models?"
    ("有没有做猕猴三维姿态数据集的论文？拍了多少场景？", "ask"),  # "…? how many scenes?": a question about it
    ("which papers deal with PDE solvers? give me a short summary", "summarize"),
    ("有哪些关于脉冲神经网络的论文？简单总结一下", "summarize"),
    ("which conference is SPINT from?", "list"),
    ("In what year was POCO published?", "list"),
    # papers asked for in chat words (2026-12-07: questions, answered from one paper)
    ("list everything about fMRI", "list"),
    ("show me the LLM interpretability work", "list"),
    ("is anyone here working on reinforcement learning memory?", "list"),
    ("show me the work of POCO on zebrafish", "ask"),  # one paper's work: a question about it
    ("EEG papers?", "summarize"),
    # a topic asked after "anything" in other places (2026-12-07, twelfth session: answered from one paper)
    ("anything in here on autonomous driving or self-driving car perception?", "summarize"),
    ("grid cells / path integration models — anything?", "summarize"),
    ("quantum machine learning - got anything?", "summarize"),
    ("stock price forecasting papers? like deep models predicting market moves", "summarize"),
    ("is anyone comparing cnns to real neurons in the primate visual system", "list"),
    ("who's looking inside existing llms to see what they encode?", "list"),
    ("anyone training one big model on neural recordings pooled across animals?", "summarize"),
    ("anything that splits a model into specialist expert modules?", "summarize"),
    ("epilepsy / seizure detection work?", "summarize"),
    ("how synapses change over time — anything on plasticity rules?", "summarize"),
    ("does SPINT work?", "ask"),
    ("who is the author of SPINT?", "ask"),

    ("tell me what the collection has on diffusion models", "summarize"),
    ("how does CSBrain differ from REVE?", "compare"),
    ("how do CSBrain and REVE differ from each other?", "compare"),
    ("How do the EEG foundation models differ from each other?", "summarize"),  # several, none named (was: ask)
    ("how do the retina-inspired CNN and the Dale's law paper differ from each other?", "ask"),  # two described
    # research asked for in other chat words (2026-12-07, fifteenth session: single questions; "what research is
    # there on diffusion models?" cited the LLM-opinions paper)
    ("What research is there on diffusion models?", "summarize"),
    ("what work has been done on EEG foundation models?", "summarize"),
    ("What's the most recent work on memory?", "summarize"),
    ("Is there research on sign language?", "summarize"),
    ("Who works on spiking neural networks?", "list"),
    ("who studies plasticity in the brain?", "list"),
    ("What work does SPINT build on?", "ask"),
    ("CSBrain vs REVE", "compare"),
    ("Compare SPINT and POCO", "compare"),
    ("比较 CSBrain 和 REVE", "compare"),
    ("How does SPINT compare to earlier decoders?", "ask"),
    ("EEG channel permutation invariance", "ask"),
    ("anything about graph neural networks for molecules?", "summarize"),
    ("research that uses calcium imaging", "summarize"),
    ("EEG papers from ICLR 2026 and NeurIPS 2025", "summarize"),  # venue words are no topic words (was: ask)
    ("what do we have on diffusion models?", "summarize"),
    ("I'd like the big picture on brain decoding", "summarize"),
    ("tell me about the reinforcement learning papers", "summarize"),
    ("关于强化学习的论文", "summarize"),
    ("那篇关于小鼠视觉皮层模型缩放的论文，用了多少只小鼠？", "ask"),
    ("有一篇关于手语识别的论文吗？", "ask"),
    ("Is there anything about the learning rate in SPINT?", "ask"),
    ("What is the big picture contribution of POCO?", "ask"),
    ("in the big survey of whether vision networks converge, how does a rotation-only map fare?", "ask"),
    ("what does this survey of EEG models conclude?", "ask"),
    ("give me a survey of the EEG papers", "summarize"),
    ("survey of work on spiking networks, please", "summarize"),
    # papers asked for in a few words, with or without a venue (2026-12-04: a keyword question, refused)
    ("papers from ICLR 2026 about fMRI", "summarize"),
    ("fMRI papers", "summarize"),
    ("NeurIPS 2025 EEG papers", "summarize"),
    ("papers for EEG decoding", "summarize"),
    ("any work on diffusion models?", "summarize"),
    ("looking for work on memory in RL agents", "summarize"),
    ("I'm interested in graph neural networks", "summarize"),
    ("what are the EEG papers about?", "summarize"),
    ("anything in here on autonomous driving?", "summarize"),  # refused there when no paper is about it
    # summaries asked in other chat words (2026-12-05: the first four were answered as one question or a list)
    ("what do the papers say about EEG?", "summarize"),
    ("what does the collection say about diffusion models?", "summarize"),
    ("what has been done on neural operators?", "summarize"),
    ("what are the main findings on mixture of experts?", "summarize"),
    ("what papers show that scaling works?", "list"),
    ("what are the main findings of REVE?", "ask"),
    # more chat words (2026-12-05 evening, from 60 fresh messages: the router had 0.683 of them right)
    ("what's the consensus, if any, on representational alignment?", "summarize"),
    ("Could you provide a structured review of the research on animal behavior in this collection?", "summarize"),
    ("explain the research on multilingual LLMs", "summarize"),
    ("I want to understand the visual cortex modeling work here", "summarize"),
    ("what themes come up in the neuroscience papers?", "summarize"),
    ("high level, what are people doing with masked autoencoding in these papers", "summarize"),
    ("brief me on the neural operator / PDE papers", "summarize"),
    ("what's the state of spiking neural network research in here?", "summarize"),
    ("NeurIPS 2025 里面神经科学方向的主要趋势是什么？", "summarize"),
    ("compare the general approaches the papers take to handling electrode heterogeneity", "summarize"),
    ("I don't need a summary, just tell me which papers touch on plasticity", "list"),
    ("I'm not after a list of which papers do it, just give me a synthesis of how they handle drift", "summarize"),
    ("can you summarize the SPINT paper?", "ask"),
    ("Which paper proposes a new text-to-speech synthesis model?", "ask"),
    ("which works use masked autoencoding", "list"),
    ("is REVE a 2025 paper?", "list"),
    ("spint venue?", "list"),
    ("is CSBrain ICLR or NeurIPS?", "list"),
    # 2026-12-06, from 44 fresh dev messages: a question about one paper, and refused
    ("anything using mamba or state-space backbones? sum it up for me", "summarize"),
    ("can you sum up the plasticity papers", "summarize"),
    ("NeurIPS 2025 papers that use fMRI or calcium imaging data?", "summarize"),
    ("NeurIPS'25 work on multimodal recommendation", "ask"),  # "work": one paper, as before
])
def test_route(message: str, kind: str) -> None:
    assert route(message, named).kind == kind


def test_compare_carries_the_named_papers_and_a_reason() -> None:
    chosen = route("how does CSBrain differ from REVE?", named)
    assert chosen.papers == [1, 2] and "compare" in chosen.reason


def test_a_comparison_of_three_named_papers_keeps_all_three() -> None:
    chosen = route("CSBrain vs REVE vs SPINT, what's actually different?", named)
    assert chosen.kind == "compare" and not chosen.each and chosen.papers == [1, 2, 3]


def test_one_question_about_several_named_papers_is_put_to_each() -> None:
    chosen = route("How many EEG tasks were CSBrain and REVE each evaluated on?", named)
    assert chosen.kind == "compare" and chosen.each and chosen.papers == [1, 2]
    assert not route("how does CSBrain differ from REVE?", named).each  # a comparison proper gets the table
    assert not route("which papers besides CSBrain and REVE use EEG?", named).each


@pytest.mark.parametrize("message", ["which is better, REVE or CSBrain?", "REVE or CSBrain, which one performs better?",
                                     "what do REVE and CSBrain have in common?", "pros and cons of REVE and CSBrain",
                                     "REVE CSBrain", "CSBrain, REVE, SPINT", "REVE 跟 CSBrain 比哪个好"])
def test_a_comparison_in_other_words_gets_the_table_not_one_answer_per_paper(message: str) -> None:
    """Put to each paper alone, "which is better?" has no answer in either abstract."""
    chosen = route(message, named)
    assert chosen.kind == "compare" and not chosen.each and len(chosen.papers) >= 2


@pytest.mark.parametrize("message", ["how do REVE and CSBrain stack up?", "what sets POCO apart from SPINT?",
                                     "in what ways are REVE and CSBrain alike?", "REVE 与 CSBrain 哪个数据更多？",
                                     "Which model is better for sleep staging, REVE or CSBrain?"])
def test_a_comparison_in_chat_words_is_one_not_a_question_put_to_each_paper(message: str) -> None:
    """Answered paper by paper before 2026-12-07: each paper's answer, no table."""
    chosen = route(message, named)
    assert chosen.kind == "compare" and not chosen.each and len(chosen.papers) == 2


def test_metadata_and_keyword_flags() -> None:
    assert route("which conference is SPINT from?", named).metadata
    # several papers' venues are each paper's record, not a comparison; a yes-or-no venue check is one too
    for message in ("which venue are REVE and CSBrain from?", "are REVE and CSBrain NeurIPS 2025 papers?",
                    "was SPINT at ICLR 2026?", "is POCO from 2025 or 2026?"):
        chosen = route(message, named)
        assert chosen.kind == "list" and chosen.metadata and chosen.papers, message
    # a venue or year asked in other words, of a paper named or described (2026-12-07: questions about it)
    for message in ("Tell me the venue of the POCO paper", "Where did SPINT appear?",
                    "When did the REVE paper come out?", "is the Earth science benchmark from ICLR?",
                    "CSBrain, 2025 or 2026?", "venue for SPINT please", "what's the publication year of REVE?"):
        chosen = route(message, named)
        assert chosen.kind == "list" and chosen.metadata, message
    # a finding that appears somewhere in a model, or a venue that scopes a question, asks no venue
    for message in ("where did the specialization appear in the CSBrain model?", "which papers from that venue use EEG?",
                    "When did the model come out in 2025?"):
        assert not route(message, named).metadata, message
    # of no named paper it asks for papers; a comparison stays one
    assert not route("was there a paper about graphs at ICLR 2026?", named).metadata
    assert route("is REVE better than CSBrain in 2025?", named).kind == "compare"
    assert not route("which papers deal with PDE solvers?", named).metadata
    assert route("spiking net heterogeneous synapses", named).keywords
    assert is_keyword_query("EEG foundation model") and not is_keyword_query("What is an EEG foundation model?")


def test_only_follow_ups_that_lean_on_context_are_rewritten() -> None:
    assert needs_context("How does it compare with POCO?") and needs_context("what data did they use")
    assert not needs_context("What is SPINT?") and not needs_context("Compare CSBrain and REVE")
    # the last question carried over to another paper (2026-12-05 evening: answered as a question of its own)
    for follow_up in ("what about CodeBrain?", "ok, how about REVE", "and for POCO?", "same for SPINT", "那 REVE 呢？"):
        assert needs_context(follow_up), follow_up
    assert not needs_context("How did the authors evaluate robustness and what about noise?")
    # a set phrase's pronoun (2026-12-06, `make run` in a browser: rewritten as a follow-up of a comparison)
    assert not needs_context("anything using mamba or state-space backbones? sum it up for me")
    assert not needs_context("what's new on EEG decoding, keep it short")
    assert needs_context("sum it up") and needs_context("sum it up for me")
    # an "it" that stands for no paper leans on nothing: the model's rewrite turned "is it possible to learn
    # plasticity rules from behavior alone?" into the last question ("which papers deal with learning rules…?")
    assert not needs_context("is it possible to learn plasticity rules from behavior alone?")
    assert not needs_context("it seems EEG models need lots of data: which use the most?")


@pytest.mark.parametrize(("message", "topic"), [
    ("anything on sign language recognition?", "sign language recognition"),
    ("papers that study animal behavior", "study animal behavior"),
    ("what's in here about EEG? give me the big picture", "EEG"),
    ("can you give me an overview of the EEG papers?", "EEG"),
    ("can you recommend papers on LLM interpretability?", "LLM interpretability"),
    ("suggest some good papers about multimodal recommendation", "multimodal recommendation"),
    ("recommend me a few transformer papers", "transformer"),
    # the words between "which"/"any" and "papers" are the topic or the venue, not the request
    ("any fMRI papers at ICLR?", "fMRI at ICLR"),
    ("which ICLR 2026 papers study memory?", "ICLR 2026 papers study memory"),
    # "papers" after a year stays: it is what makes "2026" the year filter ("2026 on EEG" filtered nothing)
    ("summarize the 2026 papers on EEG", "2026 papers on EEG"),
    ("how many EEG papers are there?", "EEG"),
    ("are there any spiking network papers?", "spiking network"),
    ("what papers do we have on memory?", "memory"),
    ("what do these papers say about plasticity?", "plasticity"),
    ("summarize what these papers say about spiking neural networks", "spiking neural networks"),
    ("can you summarize what is known about synaptic plasticity?", "synaptic plasticity"),
    ("what are the key takeaways from papers about LLM interpretability", "LLM interpretability"),
    ("give me the main ideas of the EEG papers", "EEG"),
    # the request words of more chat phrasings ("tl;dr of memory" listed no paper: "tl", "dr" are no indexed words)
    ("tl;dr of what these papers say about memory", "memory"),
    ("Could you provide a structured review of the research on animal behavior in this collection?", "animal behavior"),
    ("what's the consensus, if any, on representational alignment?", "representational alignment"),
    ("high level, what are people doing with masked autoencoding in these papers", "masked autoencoding"),
    ("what's the big picture on foundation models for neural data?", "foundation models for neural data"),
    ("I want to understand the visual cortex modeling work here", "visual cortex modeling"),
    ("what themes come up in the neuroscience papers?", "neuroscience"),
    ("compare the general approaches the papers take to electrode heterogeneity", "electrode heterogeneity"),
    ("帮我总结一下神经算子和PDE方向的进展", "神经算子和PDE方向"),
    ("state space models papers", "state space models"),
    ("papers from ICLR 2026 about fMRI", "ICLR 2026 about fMRI"),
    ("what are the EEG papers about?", "EEG"),
    ("top papers on LLM evaluation", "LLM evaluation"),
    ("help me find papers on brain decoding", "brain decoding"),
    ("any work on diffusion models?", "diffusion models"),
    ("looking for work on memory in RL agents", "memory in RL agents"),
    ("anything using mamba or state-space backbones? sum it up for me", "mamba or state-space backbones"),
    ("anything in here on autonomous driving?", "autonomous driving"),
    ("grid cells / path integration models — anything?", "grid cells / path integration models"),
    ("quantum machine learning: got anything?", "quantum machine learning"),
    ("is anyone here working on reinforcement learning memory?", "reinforcement learning memory"),
    ("who's looking inside existing llms?", "looking inside existing llms"),
    ("spiking neuron stuff? snns", "spiking neuron snns"),
    # an adjective or article of the request's noun, a dash clause that names nothing, a Chinese particle
    ("give me a quick rundown of the graph transformer papers", "graph transformer"),
    ("what's the rundown on models that forecast spikes?", "models that forecast spikes"),
    ("anything on sleep staging? brief overview please", "sleep staging"),
    ("ICLR 2026 papers involving rats, give me a summary", "ICLR 2026 papers involving rats"),
    ("what's the deal with sparse coding in the vision papers?", "sparse coding in the vision"),
    ("do you have papers on reward models?", "reward models"),
    ("what have you got on optogenetics?", "optogenetics"),
    ("can you summarise whatever you have on protein design?", "protein design"),
    ("give me the gist of everything on attention — transformers, whatever", "attention — transformers"),
    ("contrastive pretraining - who uses it here? rundown", "contrastive pretraining"),
    ("vision transformers — any papers using them?", "vision transformers"),
    ("world models (video and the like) - what's covered here? tl;dr", "world models (video and the like)"),
    ("有哪些关于图神经网络的论文？简单总结一下", "图神经网络"),
    ("有哪些论文用了猕猴的数据？帮我总结下", "用了猕猴的数据"),
    ("这里面有做图像分割的吗？", "有做图像分割"),
    # what the papers share, their main approaches, one line each (2026-12-07, fifteenth session)
    ("What do the spiking neural network papers have in common?", "spiking neural network"),
    ("how do the memory papers differ from one another?", "memory"),
    ("How do the EEG foundation models differ from each other?", "EEG foundation models"),
    ("what are the main approaches to forecasting neural activity in these papers?", "forecasting neural activity"),
    ("what are the common themes in the EEG papers?", "EEG"),
    ("Give me a one-line summary of each graph neural network paper", "graph neural network"),
    ("What research is there on diffusion models?", "diffusion models"),
    ("what work has been done on EEG foundation models?", "EEG foundation models"),
    ("What's the most recent work on memory?", "memory"),
    ("Who works on spiking neural networks?", "spiking neural networks"),
    ("who studies plasticity in the brain?", "plasticity in the brain"),
    ("Could you summarize the work on graph neural networks for me?", "graph neural networks"),
])
def test_the_topic_is_the_message_without_its_request(message: str, topic: str) -> None:
    assert topic_of(message) == topic


@pytest.mark.parametrize(("message", "topic", "detail"), [
    ("Which papers use EEG recordings, and what tasks do they evaluate on?", "EEG recordings",
     "what tasks do they evaluate on?"),
    ("what papers deal with memory in RL agents and how do they test it?", "memory in RL agents", "how do they test it?"),
    ("anything on forecasting future neural activity? what recordings do they use?", "forecasting future neural activity",
     "what recordings do they use?"),
    ("papers that benchmark LLMs on city data — what do they measure?", "benchmark LLMs on city data",
     "what do they measure?"),
    ("which papers train on mouse data, and how many animals does each use?", "train on mouse data",
     "how many animals does each use?"),
    ("哪些论文用了脑电数据？它们在哪些任务上做了评估？", "用了脑电数据", "它们在哪些任务上做了评估？"),
    # no question back about the papers: the topic keeps its words
    ("which papers study how neurons learn?", "study how neurons learn", ""),
    ("papers on how LLMs store what they learn", "how LLMs store what they learn", ""),
    ("Which papers use EEG data?", "EEG data", ""),
])
def test_a_question_asked_of_each_paper_is_no_word_of_the_topic(message: str, topic: str, detail: str) -> None:
    """"…, and what tasks do they evaluate on?" searched "EEG recordings, and what tasks do they evaluate"
    and listed SPINT, which says "tasks" and "evaluate" and never EEG."""
    assert (topic_of(message), follow_on(message)) == (topic, detail)


@pytest.mark.parametrize(("message", "kind", "topic", "detail"), [
    ("which datasets are used across the EEG papers?", "list", "EEG", "which datasets are used"),
    ("how many subjects do the EEG foundation models train on?", "list", "EEG foundation models",
     "how many subjects do they train on"),
    ("what kind of graphs do the graph neural network papers build?", "list", "graph neural network",
     "what kind of graphs do they build"),
    ("what metrics are the seizure detection studies evaluated with?", "list", "seizure detection",
     "what metrics are they evaluated with"),
    ("what do the EEG papers evaluate on?", "list", "EEG", "what do they evaluate on"),  # a list before, "EEG evaluate"
    ("脑电基础模型的论文都用了哪些数据集？", "list", "脑电基础模型", "都用了哪些数据集"),
    ("这些脑电论文分别在哪些任务上做了评估？", "list", "脑电", "分别在哪些任务上做了评估"),
    ("这些论文都用了哪些数据集？", "ask", None, ""),  # no topic: the papers of the conversation
    ("那篇关于脑电的论文用了哪些数据集？", "ask", None, ""),  # one paper
    # not a topic's papers: no topic word, two described papers, a summary's request, one named paper
    ("what kinds of neural data do these papers use?", "ask", None, ""),
    ("what is the difference between the two models?", "ask", None, ""),
    ("what do the spiking network papers have in common?", "summarize", "spiking network", ""),
    ("what are the main approaches to forecasting in these papers?", "summarize", "forecasting", ""),
    ("what datasets does the REVE paper use?", "ask", None, ""),
])
def test_a_question_asked_of_each_paper_before_its_topic_lists_the_topics_papers(
        message: str, kind: str, topic: str | None, detail: str) -> None:
    """"which datasets are used across the EEG papers?" was a single question, answered
    from the first papers found; each paper's own sentence on its datasets is the answer."""
    assert route(message, named).kind == kind
    assert (topic_of(message) if topic else None, follow_on(message)) == (topic, detail)


@pytest.mark.parametrize(("message", "topic"), [
    ("what did NeurIPS 2025 have on neural PDE solvers? overview please", "neural PDE solvers"),
    ("In the ICLR 2026 set, are there any papers on protein design?", "protein design"),
    ("In the ICLR 2026 batch, any work on graph transformers?", "graph transformers"),
    ("does ICLR 2026 have anything on optogenetics?", "optogenetics"),
])
def test_a_venue_filter_leaves_no_request_word_in_the_topic(message: str, topic: str) -> None:
    """The venue, taken out as the filter, parted the request's words ("what did … have on")."""
    filters = parse_filters(topic_of(message))
    assert topic_scope(Scope(filters.question, filters.venue, None, parsed={"venue": filters.venue})).query == topic


@pytest.mark.parametrize(("message", "asks_which"), [
    ("which ICLR 2026 paper is about a foundation model for brainwave recordings?", True),
    ("neurips 2025 seizure detector where the electrode graph changes over time - name?", True),
    ("ICLR 2026 paper that models deep brain stimulation - what's it called?", True),
    ("did NeurIPS 2025 have a paper on catching deepfake faces?", True),
    ("the ICLR 2026 predictive coding paper", True),
    ("哪篇论文研究手语识别？", True),
    ("among the NeurIPS 2025 papers, which one is about sign language?", True),  # "one" of the papers
    ("which one of these ICLR papers models deep brain stimulation?", True),
    ("which papers study EEG?", False),  # a list, routed before
    ("How many subjects did CSBrain use?", False),
    ("which model does CSBrain use?", False),
    ("What is the name of the dataset used by REVE?", False),
    ("which branch converges faster, and which one lags behind?", False),  # "one" of what it lists
    ("that scaling-laws paper on mouse recordings — how many cells were recorded?", False),  # asks about it
    ("what does each one predict?", False),
    ("那个基准的两个数据集分别叫什么？", False),
])
def test_a_question_asking_which_paper_is_told_apart(message: str, asks_which: bool) -> None:
    assert identifies(message) is asks_which



@pytest.mark.parametrize(("message", "aspects"), [
    ("how do CSBrain and REVE differ in tokenizing EEG?", ["tokenizing EEG"]),
    ("How do REVE and CSBrain differ in the way they tokenize EEG signals?", ["tokenize EEG signals"]),
    ("compare REVE and CSBrain on data and number of subjects", ["data", "number of subjects"]),
    ("how does CSBrain differ from REVE in data?", ["data"]),
    ("What are the differences in pretraining data between CSBrain and REVE?", ["pretraining data"]),
    ("compare CSBrain with REVE in terms of the datasets they use", ["datasets"]),
    ("which is better on sleep staging, REVE or CSBrain?", ["sleep staging"]),
    ("CSBrain vs REVE : data, channels", ["data", "channels"]),
    ("CSBrain 和 REVE 在数据上有什么区别？", ["data"]),  # through the term dictionary
    # none named, only how to answer, or the words of a question of its own
    ("how does CSBrain differ from REVE?", []),
    ("compare CSBrain and REVE in a table", []),
    ("compare CSBrain and REVE in detail, for me", []),
    ("Is CSBrain different from REVE in any way?", []),
    ("CSBrain vs REVE : what's actually different about them?", []),
    ("CSBrain vs REVE — how does each one deal with where the electrodes sit on the head?", []),
    ("CSBrain vs REVE whats the backbone in each?", []),
    ("compare CSBrain in contrast to REVE", []),
    ("differ CSBrain REVE in the the the", []),
    # the few words after the last name ("spint vs neuropaint architecture")
    ("CSBrain vs REVE architecture", ["architecture"]),
    ("CSBrain vs REVE data and subjects", ["data", "subjects"]),
    ("how does CSBrain differ from the REVE paper", []),
    ("pros and cons of CSBrain vs REVE as foundation models", []),
    ("compare CSBrain and REVE on how well they generalize to new subjects with very few labels", []),  # a clause
    ("put CSBrain and REVE side by side", []),  # how to answer, no aspect
])
def test_a_comparison_names_what_to_compare_on(message: str, aspects: list[str]) -> None:
    assert asked_aspects(message, named) == aspects
    chosen = route(message, named)
    assert chosen.kind == "compare" and chosen.aspects == aspects
    assert chosen.reason.endswith(f" on {', '.join(aspects)}") == bool(aspects)


@pytest.mark.parametrize(("message", "collection", "small_talk"), [
    ("how many papers are in the collection?", True, False),
    ("list all papers", True, False),
    ("what venues are covered?", True, False),
    ("一共有多少篇论文？", True, False),
    ("hi", False, True),
    ("thanks!", False, True),
    ("What can you do?", False, True),
    ("how many papers are about EEG?", False, False),  # a topic: the list of its papers
    ("list all papers on EEG", False, False),
    ("hello, what is SPINT?", False, False),
])
def test_the_collection_itself_and_small_talk_are_told_apart(message: str, collection: bool, small_talk: bool) -> None:
    chosen = route(message, named)
    assert (chosen.collection, chosen.small_talk) == (collection, small_talk)
