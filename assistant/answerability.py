"""Whether the shown abstracts can hold an answer, decided from the question
and the evidence alone, before the model reads anything.

The 1.5B model's own yes/no verdict does not separate answerable from
unanswerable questions (on dev its P(yes) for both spans 0.32–0.69), so two
kinds of unanswerable question that the evidence itself gives away are
refused here, without a model call:

- **no paper is about it**: the question names no indexed paper (nor a
  capitalised name the closest abstract uses) and the closest paper is far
  off in meaning (dense cosine below the cut-off that keeps a topic summary
  from listing the best of nothing);
- **a detail abstracts leave out**: a part of the question asks for a
  training detail (learning rate, batch size, GPUs, training time, …) and no
  sentence of the abstracts it is about (the papers it names, else all those
  retrieved) mentions it at all;
- **a name no abstract uses**: a part of the question names something
  ("ImageNet", "GPT-4", "Allen Brain Observatory") that no retrieved paper's
  name, title or abstract contains (nor spells out, for an acronym);
- **a premise the paper contradicts**: a part of the question takes for
  granted which animals or which recording the paper it is about used, and
  the abstract names others (``premises``: monkeys asked of a mouse study).

Only when every part of the question is of these kinds: a part that asks
something the abstracts may hold goes to the model, which answers it and
declines the rest (a partial refusal).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from assistant import prompts
from assistant.crosslingual import CJK, has_cjk
from assistant.evidence import Evidence
from assistant.intent import compares, describes_paper
from assistant.lexical import name_keys, tokenize
from assistant.mentions import spellings, unmentioned
from assistant.papers import Paper
from assistant.premises import Premise, conflicts, reversals


@dataclass(frozen=True)
class Detail:
    """A detail papers' abstracts rarely state: how a question asks for it,
    and the words an abstract would use if it did state it."""

    name: str
    asked: re.Pattern[str]
    stated: re.Pattern[str]
    #: Asked beside another detail, only what that one is about ("what licence is the code under?").
    context: bool = False


def _detail(name: str, asked: str, stated: str, context: bool = False) -> Detail:
    return Detail(name, re.compile(asked, re.IGNORECASE), re.compile(stated, re.IGNORECASE), context)


#: A language model as a question names the kind ("LLM", "vision-language models", "chatbots").
_LANGUAGE_MODEL = r"llms?|(?:large |vision[- ])?language models?|vlms?|lvlms?|mllms?|chatbots?"

#: Training and bookkeeping details (English and Chinese cues).
DETAILS = (
    _detail("learning rate", r"\blearning[- ]rates?\b|学习率", r"\blearning[- ]rates?\b|\blr\b"),
    _detail("batch size", r"\bbatch[- ]?sizes?\b|批(?:量|次)?大小", r"\bbatch"),
    _detail("optimizer", r"\boptimi[sz]ers?\b|优化器", r"\boptimi[sz]er|\badamw?\b|\bsgd\b|gradient descent"),
    _detail("training epochs", r"\bepochs?\b|\bhow many (?:training )?(?:steps|iterations)\b|训练轮数",
            r"\bepochs?\b|\b(?:steps|iterations)\b"),
    _detail("hardware", r"\b(?:gpus?|tpus?|hardware|accelerators?)\b|显卡|(?:多少|几)(?:张|块)(?:显)?卡",
            r"\b(?:gpus?|tpus?|hardware|accelerators?|[ahv]100s?)\b"),
    _detail("training time",
            r"\bhow long (?:did|does|do|would|will) (?:it|they|\w+) (?:take )?(?:to )?(?:pre-?)?train|"
            r"\bhow long (?:did|does|would|will) (?:it|that|this) take\b|"
            # "how many days did it take…", not "how many hours of EEG did REVE pretrain on?" (its data)
            r"\bhow many (?:gpu[- ])?(?:hours|days|weeks|months)\b(?: (?:did|does|do|would|will))? "
            r"(?:it|they|that|this|the (?:pre-?)?training) take\b|"
            r"\b(?:pre-?)?training (?:time|duration)\b|\bwall[- ]?clock\b|训练(?:了)?多(?:久|长时间)|训练时间|跑了多(?:久|长时间)",
            r"\bwall[- ]?clock\b|\btraining time\b|\b(?:gpu|tpu)[- ]?(?:hours|days)\b|"
            r"\b(?:hours|days|weeks) (?:of|to) (?:pre-?)?train|\btrain\w* (?:for|in|takes?) [^.]{0,20}"
            r"\b(?:minutes|hours|days|weeks)\b"),
    _detail("sampling temperature", r"\b(?:sampling|decoding|softmax) temperature\b|\btemperature (?:setting|value)\b",
            r"\btemperature\b"),
    _detail("random seeds", r"\b(?:random )?seeds?\b|随机种子", r"\bseeds?\b"),
    _detail("authors", r"\bwho (?:are|were|is|was) (?:the |its )?authors?\b|\bwho wrote\b|\bauthors'? names\b|"
            r"作者是谁|作者有哪些|谁写的", r"\bauthor(?:s|ed)?\b"),
    _detail("author affiliations", r"\buniversit(?:y|ies)\b|\binstitutions?\b|\baffiliations?\b|"
            r"\b(?:what|which) (?:lab|laboratory|company)\b|哪(?:所|个)大学|机构|实验室",
            r"\buniversit|\binstitut|\baffiliat|\blaborator|\blabs?\b|\bcompany\b"),
    _detail("parameter count", r"\b(?:how many|number of) (?:trainable )?(?:parameters|params|weights)\b|"
            r"\bparameter count\b|\bmodel size\b|\b(?:millions|billions) of (?:parameters|params|weights)\b|"
            # "weights" alone is no count: "We release code, pretrained weights, and tutorials" (REVE)
            r"\bwhat size is (?:it|the (?:model|llm|network))\b|"
            r"参数量|多少(?:个)?参数|模型(?:到底|究竟)?(?:有)?多大|模型(?:的)?(?:大小|规模)", r"\bparam(?:eter)?s\b|\b(?:millions?|billions?|\d[\d.,]*\s*[kmb]?) (?:of )?"
            r"(?:trainable )?weights\b|\bmodel sizes?\b"),
    # which third-party language model a paper used, asked of abstracts that name none ("which LLM played the
    # debaters?", "which vision-language model came out on top in CityLens?"); not "what LLMs internally know"
    _detail("names of the language models used",
            r"\b(?:which|what)\s+(?:(?:specific|exact|particular|actual|base|underlying|open[- ]source|proprietary|"
            r"commercial|\d+b|large|pre-?trained|frontier)\s+)*(?:" + _LANGUAGE_MODEL + r"|"
            r"multimodal (?:llms?|models?)|gpt models?|base models?|"
            r"(?<=specific )models?|(?<=exact )models?|(?<=particular )models?)(?=\s+(?:did|do|does|was|were|has|have|"
            r"had|played|achieved|scored|came|performed|won|got|they|served|acted|powered|"
            r"(?:is|are)(?!\s+(?:better|worse|stronger|weaker|faster|slower|more|less)\b)))|"
            # "…asks vision-language models to guess…, which model scored best?": the best of the models it ran
            r"^(?=.*\b(?:" + _LANGUAGE_MODEL + r")\b).*\bwhich (?:model|one|system)s? "
            r"(?:scored|performed|did|came out|won|ranked|was|got)\b|"
            r"哪(?:个|些|款)(?:大)?(?:语言)?模型|什么(?:大)?语言模型|基座模型",
            r"\b(?:gpt-?[\d.]+o?|gpt|chatgpt|llama[-\s]?\d*|codellama|mistral|mixtral|qwen[\w.-]*|gemini|gemma|claude|"
            r"palm|bert|roberta|t5|flan|opt-\d+\w*|pythia|vicuna|alpaca|zephyr|phi-\d|deepseek[\w-]*|olmo|bloom|"
            r"internlm|internvl|llava|blip-?\d?|flamingo|baichuan|chatglm|glm-\d|falcon-\d+\w*|yi-\d+\w*|grok|"
            r"starcoder|codex|o[134](?:-mini)?|sonnet|opus|haiku|\d+(?:\.\d+)?\s?b)\b|(?-i:\bCLIP\b)"),
    _detail("funding", r"\bfund(?:ed|ing|er|ers)\b|\bgrants?\b|资助", r"\bfund(?:ed|ing|s)?\b|\bgrants?\b"),
    _detail("licence", r"\blicen[cs]e[sd]?\b|许可证", r"\blicen[cs]"),
    _detail("code release",
            r"\b(?:source )?code\b[^.?]{0,40}\b(?:available|released?|open[- ]?sourced?|public|shared)\b|"
            r"\b(?:weights|checkpoints?)\b[^.?]{0,30}\b(?:available|released?|open[- ]?sourced?|public)\b|"
            r"\bopen[- ]?sourced?\b|\bgithub\b|\bcodebase\b|开源|代码(?!本)",
            r"\bcodes?\b[^.]{0,40}\b(?:available|releas)|\b(?:releas\w*|open-sourc\w*) (?:our |the |its |all )?"
            r"(?:code|models?|weights|checkpoints)|github|https?://|\bavailable at\b", context=True),
    _detail("hyperparameters", r"\bhyper-?parameters?\b|\bweight decay\b|\bdropout (?:rate|probability)\b|"
            r"\blora rank\b|\brank (?:of|for) (?:the |each |its )?\w*-?lora|超参数",
            r"\bhyper-?parameter|\bweight decay\b|\bdropout\b|\brank\b"),
    _detail("privacy budget", r"\bprivacy budget\b|\bepsilon\b|ε", r"\bprivacy budget\b|\bepsilon\b|ε"),
    # the paper's own shortcomings, not those of prior work ("the limitations of existing methods")
    _detail("limitations", r"\b(?:limitations?|downsides?|drawbacks?|weaknesses|shortcomings)\b"
            r"(?! of (?:existing|prior|previous|current|earlier|standard|other))|\bfuture work\b|"
            r"\b(?:when|where|in what \w+) (?:does|do|did|would) [\w-]+(?: \w+)? (?:fail|struggle|break down)\b|"
            r"\bbreaks? down\b|局限性|缺点|不足之处",
            r"\blimitations?\b|\bdrawbacks?\b|\bshortcomings?\b|\bweakness|\bdownsides?\b|"
            r"\bfuture (?:work|research|directions?)\b|\bwe leave\b|\bnot yet\b|\bremains? (?:an )?open\b|"
            r"\b(?:is|are) (?:limited|restricted) to\b|\bdoes not (?:generali[sz]e|scale|apply|hold)|"
            r"\bfails? to\b|\bcannot\b|\bstruggles?\b|\bbreaks? down\b"),
)


#: Where a question asks a second thing ("What is SPINT and which GPU…?").
_CLAUSES = re.compile(r"[?;？；]|\b(?:and|also|but)\s+(?=(?:what|which|how|who|where|when|why|whose|is|are|was|were|"
                      r"do|does|did|can)\b)|以及|并且", re.IGNORECASE)


#: A parenthesis: its question marks offer examples ("which backbones (FNO? DeepONet?) did they use"), not parts.
_PARENTHESIS = re.compile(r"[(（][^()（）]*[)）]")


def question_parts(question: str) -> list[str]:
    """The things a question asks, one per part ("What is SPINT" and "which GPU…")."""
    unbroken = _PARENTHESIS.sub(lambda m: re.sub(r"[?？]", ",", m.group()), question)
    return [clause for clause in _CLAUSES.split(unbroken) if clause.strip()]


def _calls(question: str, paper: Paper) -> bool:
    """The question calls the paper by a capitalised name its abstract uses
    ("which conference published Stretch-and-Squeeze?"): it is about that
    paper, however far the question's words are from the abstract's meaning."""
    names = {w for w in name_keys(question.split(maxsplit=1)[-1]) if w[0].isupper() and len(w) >= 3}
    return any(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", paper.abstract) for w in names)


#: A question asking for an amount ("how many", "by what percentage", "多少").
_AMOUNT = re.compile(r"\b(?:how (?:many|much)|number of|percent(?:age)?|what fraction)\b|多少|几", re.IGNORECASE)
#: Numbers written out as an abstract or an answer states an amount ("five Earth spheres").
NUMBER_WORDS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "dozen",
                "dozens", "hundred", "hundreds", "thousand", "thousands", "million", "millions", "billion", "billions")
#: A number as a sentence states one: not a name's digits ("3D", "GPT-4", "L2").
_NUMBER = re.compile(r"(?<![\w.\-/])\d[\d,.]*(?![A-Za-z\d/])|\b(?:" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE)


def quotable(question: str, quotes: list[str], about: list[Paper], papers: Collection[str] = ()) -> bool:
    """Whether quoted sentences may stand in for an answer the model did not
    give. Not when the question names what no abstract of ``about`` mentions
    (no quote can say it), nor when it asks how many or how much and no
    quote states a number ("improves nRMSE" does not say by how much). On
    dev such quotes had overruled three right refusals and no answerable
    question's; ``papers`` are the indexed papers' names, as for ``unmentioned``."""
    if unmentioned(question, about, papers):
        return False
    return not _AMOUNT.search(question) or any(_NUMBER.search(q) for q in quotes)


#: A question asking for a count or a share, which an answer must give as a number: narrower than
#: ``_AMOUNT``, since "how does it decide how much each branch contributes?" is answered in words.
_COUNT = re.compile(r"\bhow many\b|\bnumber of\b|\bby how much\b|\bwhat (?:percentage|fraction)\b|多少|几(?:个|种|项|位|次)",
                    re.IGNORECASE)
#: A number in Chinese text: digits next to characters ("使用了16个数据集", where ``_NUMBER`` sees a
#: word character before the 1) or written out ("六万小时").
_CJK_NUMBER = re.compile(r"\d|[零一二两三四五六七八九十百千万亿]")
#: A paper's label, whose year counts nothing: "SPINT (NeurIPS 2025) introduces …" for "how many minutes…?".
_LABEL_YEAR = re.compile(r"\([^()]*\b(?:19|20)\d\d\)")
#: Words an answer adds to its question without saying anything ("Yes, … had a paper on …"), vague
#: amounts among them: "DeepSADR was evaluated on several cancer types and drugs" for "which cancer
#: types and which drugs…?" names none (dev, unanswerable; no answerable dev reply changed, 2026-12-05).
_FILLER = frozenset(tokenize("yes no indeed paper study work abstract source article authors "
                             "several various multiple many some numerous certain"))


def responds(question: str, claims: list[str]) -> bool:
    """Whether an answer's sentences (citation markers removed) say
    something the question does not: not when every word they use is the
    question's ("The hybrid CNN … besides robustness, perceptual tendency
    gets stronger" for "… what perceptual tendency gets stronger?"), nor
    when the question asks how many or how much and no sentence states a
    number ("SnS was applied to biological vision" for "how many macaque
    neurons…"; the year of a paper's label "(NeurIPS 2025)" is none; a
    question that also asks something else, "…了解多少的那篇研究，用了什么工具…？
    最后定位到哪类组件？", may be answered without one). A
    Chinese sentence, not tokenized, is judged on its characters: "…用符号一致
    性来近似生物学原则是" for "…来近似哪条生物学原则？" adds only a copula; nor does
    the prompt's instruction said back ("答案在 Chinese， citing sources as"), nor
    the question's acronym spelled out ("MiCRo is built on a pretrained
    language model" for "what pretrained LM is MiCRo built on…?"). Such a
    reply is no answer: the quoted sentences or the refusal take its place,
    as after a refusal."""
    if not claims:
        return False
    counts = [bool(_COUNT.search(clause)) for clause in question_parts(question)]
    if counts and all(counts) and not any(_NUMBER.search(c) or (has_cjk(c) and _CJK_NUMBER.search(c))
                                          for c in (_LABEL_YEAR.sub("", c) for c in claims)):
        return False  # only when every part asks a count: the answer to another part may hold no number
    asked = set(tokenize(question)) | _FILLER | _INSTRUCTED
    return any(set(tokenize(c)) - asked - _spelled_out(question, c) or set(CJK.findall(c)) - set(question) - _CJK_FILLER
               for c in claims)


#: An acronym as a question writes it ("LM", "LLMs", "VLM").
_ACRONYM = re.compile(r"\b[A-Z]{2,5}(?=s?\b)")


def _spelled_out(question: str, sentence: str) -> set[str]:
    """The words of ``sentence`` that spell out an acronym of the question
    ("language model" for "LM"): the question's own words, written out."""
    return {w for acronym in _ACRONYM.findall(question) for phrase in spellings(acronym, sentence)
            for w in tokenize(phrase)}


#: The answer prompt's own instruction ("Answer in Chinese, citing sources as [n].") said back is no answer.
_INSTRUCTED = frozenset(tokenize(re.sub(r"\{\w+\}", " ", prompts.ASK.splitlines()[-1]) + " Chinese English"))

#: Chinese characters that say nothing a question does not: copulas, particles, measure words, "the answer", "paper".
_CJK_FILLER = frozenset("是的了在中和与及为有这那其该此个篇种项论文答案研究作者即也就所被以")


#: A question's own asking words, which say nothing of what a part asks ("how many … do they span?").
_ASKING = frozenset(tokenize("how many much what which who whom whose where when why do does did is are was were "
                             "than this that these those they them it its each one ones there"))


#: A part that asks something ("… and how many disciplines do they span"), not an instruction ("Cite paper [99].").
_ASKS = re.compile(r"\s*(?:(?:and|also|but|so)\s+)?(?:what|which|how|who|whom|whose|where|when|why|is|are|was|were|"
                   r"do|does|did|can|could|would|will|has|have|had)\b", re.IGNORECASE)


def parts_left(question: str, claims: list[str]) -> list[tuple[str, set[str]]]:
    """The parts of a question of two or more (``question_parts``) that an
    answer's sentences leave out, each with the words it alone asks
    ("disciplin", "span" for "… and how many disciplines do they span?"):
    the 1.5B model answers the first part and stops (dev: "100,000 research
    papers [1]." for papers and disciplines). A part is left out when the
    answer says none of those words and it asks something (not "Cite paper
    [99]."); a Chinese question is not judged, nor a part asking a detail
    abstracts leave out (``DETAILS``: the model's silence on "how many
    GPUs" is right, a sentence with a number is not the answer)."""
    parts = question_parts(question)
    if len(parts) < 2 or has_cjk(question):
        return []
    said = set(tokenize(" ".join(claims)))
    left = []
    for k, part in enumerate(parts):
        others = set(tokenize(" ".join(p for j, p in enumerate(parts) if j != k)))
        own = set(tokenize(part)) - others - _FILLER - _ASKING
        if own and not own & said and _ASKS.match(part) and not asked_details(part):
            left.append((part, own))
    return left


def states_part(part: str, own: set[str], sentence: str, share: float) -> float:
    """How much of what a part alone asks (``own``, see ``parts_left``) a
    sentence says: the share of those words it uses, 0 below ``share``, or
    when the part asks a count and the sentence states no number."""
    found = len(own & set(tokenize(sentence))) / len(own)
    return found if found >= share and (not _COUNT.search(part) or _NUMBER.search(sentence)) else 0.0


#: Words a topic summary's sentence uses to say nothing of its papers ("The papers study the topic of
#: EEG. They share that they are all about EEG.").
_ANY_TOPIC = frozenset(tokenize("papers study studies topic share shared all about both they them their these "
                                "differ different approach focus area field research work use"))


def adds_to(topic: str, sentence: str) -> bool:
    """Whether a summary's sentence says something its topic (the user's
    message) does not: "The papers study the topic of EEG." says nothing
    (9 of the 68 sentences of the 2026-12-04 summaries, none holding a
    gold fact). Only for summaries: in an answer to "which paper …?" a
    sentence of the question's own words ("It is pretrained with …") is
    the answer. A Chinese sentence is not judged (not tokenized)."""
    return has_cjk(sentence) or bool(set(tokenize(sentence)) - set(tokenize(topic)) - _FILLER - _ANY_TOPIC)


#: A connective, a word that ties a sentence to the one before it ("However, they differ in…"): left dangling at an
#: answer's start when the check removed that sentence (a summary's "The papers all study EEG [1][2].").
CONNECTIVE = re.compile(r"^(?:however|in contrast|by contrast|moreover|furthermore|additionally|in addition|also|"
                        r"nevertheless|nonetheless|on the other hand|conversely|likewise|similarly|instead),\s*"
                        r"|^(?:然而|但是|不过|此外|另外|同时|而且|相比之下)[，,]\s*", re.IGNORECASE)
#: A sentence about every paper at once ("The papers study…", "They differ in…", "这些论文…").
_ALL_PAPERS = re.compile(r"^(?:(?:the|these|those|both|all(?: of)?(?: the)?|together,? the)\s+"
                         r"(?:(?:two|three|four|five|six|seven|eight|several|selected|listed|above|cited)\s+)?"
                         r"(?:papers|studies|works|models|approaches|methods|frameworks)\b|both\b"
                         r"|they\s+(?:all|both|each|differ|share|also differ|are all|are both)\b)"
                         r"|^(?:这些|这几篇|这两篇|两篇|所有|各篇)(?:论文|研究|工作|模型|方法)|^它们", re.IGNORECASE)


def for_all_papers(sentence: str, cited: Collection[int], sources: int) -> bool:
    """Whether a sentence of a many-paper answer speaks for all its papers
    and cites one: that paper's finding is given to the others (dev: "The
    papers study the impact of AI on people's beliefs or opinions [1]",
    "They differ in their approach, with EvoBrain integrating a two-stream
    Mamba architecture [1]", which says nothing of the other paper)."""
    return sources > 1 and len(set(cited)) == 1 and bool(_ALL_PAPERS.search(CONNECTIVE.sub("", sentence.strip(), count=1)))


def asked_details(question: str) -> list[Detail]:
    """The details of ``DETAILS`` a question asks for; a context detail
    only when it is the only one ("what licence is the code under?" asks
    the licence: the code's link would otherwise stand for it)."""
    asked = [d for d in DETAILS if d.asked.search(question)]
    return [d for d in asked if not d.context] or asked


#: Words a question about a topic uses besides the topic ("is there any work on …", "which paper would help me …").
_FRAME = frozenset(tokenize("anything something any work works research study studies help find look looking about "
                            "tell show give know want need would could can here use uses used using apply applies "
                            "employ employs propose proposes introduce introduces rely relies"))


def _says_topic(question: str, paper: Paper) -> bool:
    """Every word of the question (its frame left out) is the paper's:
    "is there a paper on recommender systems?" is about AGM, whose
    "large-scale recommendation systems" MiniLM puts at cosine 0.24 to it,
    under the cut-off below which no paper is about a question. One word
    missing is enough to doubt it ("autonomous driving" and an abstract's
    "driving breakthroughs"). A question in Chinese has no such words."""
    words = set(tokenize(question)) - _FILLER - _FRAME
    return bool(words) and words <= set(tokenize(f"{paper.name} {paper.title} {paper.abstract}"))


def missing(question: str, evidence: list[Evidence], min_similarity: float,
            papers: Collection[str] = ()) -> str | None:
    """Why the shown abstracts cannot answer ``question`` (None: they may);
    ``papers`` are the indexed papers' names."""
    if not evidence:
        return None
    top = evidence[0].hit
    closest = max((e.hit for e in evidence), key=lambda h: h.similarity)  # fusion may rank another paper first
    if (not any(e.hit.named for e in evidence) and closest.similarity < min_similarity and not _calls(question, top.paper)
            and not any(_says_topic(question, e.paper) for e in evidence)):
        return f"no paper is about this (the closest, {closest.paper.name}, is far off in meaning)"
    about = [e for e in evidence if e.hit.named] or evidence  # a paper it names, else every paper found
    # the premises of a question about one paper it describes are that paper's; a comparison's are the other paper's
    premised = [] if compares(question) else [top.paper] if about is evidence and describes_paper(question) else [
        e.paper for e in about]
    found = [_gap(clause, about, evidence, papers, premised, premised or [e.paper for e in about])
             for clause in _asked_parts(question)]
    gaps = [gap for gap in found if gap is not None]
    if not gaps or len(gaps) < len(found):
        return None
    details = list(dict.fromkeys(d.name for gap in gaps for d in gap[0]))
    names = list(dict.fromkeys(n for gap in gaps for n in gap[1]))
    contradicted = list(dict.fromkeys(str(c) for gap in gaps for c in gap[2]))
    reasons = ([f"the abstracts found do not mention the {' or the '.join(details)}"] if details else []) + (
        [f"no abstract found mentions {', '.join(names)}"] if names else []) + contradicted
    return "; ".join(reasons)


#: A part of at most two words with no asking word: the examples of the part before ("llama? mistral?").
_EXAMPLE = re.compile(r"^\s*(?:or\s+)?[\w.+-]+(?:\s+[\w.+-]+)?\s*$")
#: A part asking among what the part before asks for ("which LLMs were evaluated, and which one scored best?").
_AMONG_THEM = re.compile(r"^\s*(?:and\s+)?which (?:one|ones|of them|of those|of these)\b", re.IGNORECASE)


def _asked_parts(question: str) -> list[str]:
    """``question_parts`` without the parts that only go on with a part
    asking a detail: its examples ("which specific models did they test,
    llama? mistral?": "mistral" is one of the models asked, not a thing
    asked of its own) and a choice among what it asks for ("…, and which
    one scored best?": no abstract naming the models, none names the best)."""
    parts = question_parts(question)
    return [p for k, p in enumerate(parts)
            if not (k and (_EXAMPLE.match(p) and not _ASKS.match(p) or _AMONG_THEM.match(p))
                    and asked_details(parts[k - 1]))]


def _gap(clause: str, about: list[Evidence], evidence: list[Evidence], papers: Collection[str],
         premised: list[Paper], compared: list[Paper]) -> tuple[list[Detail], list[str], list[Premise]] | None:
    """What one part of a question asks that the abstracts leave out: the
    details none of the papers it is ``about`` mentions, else the names no
    paper found uses at all, else the premises the papers it takes them
    of (``premised``) contradict, or a comparison it takes one way that
    the ``compared`` papers state the other way (also of a question
    comparing papers, whose premises are otherwise not judged: see
    ``premises.reversals``; None: nothing, so the part may be answered)."""
    details = asked_details(clause)
    if details and not any(d.stated.search(s) for d in details for e in about for s in e.sentences):
        return details, [], []
    names = unmentioned(clause, [e.paper for e in evidence], papers)
    if names:
        return [], names, []
    contradicted: list[Premise] = [*conflicts(clause, premised), *reversals(clause, compared)]
    return ([], [], contradicted) if contradicted else None
