"""Which path a chat message takes: a question, a topic summary, a
comparison, or a list/metadata question.

Users do not pick modes: "give me an overview of the EEG papers" is a
summary, "how does CSBrain differ from REVE?" a comparison, "which
conference is SPINT from?" a metadata look-up. Sent down the single-question
path, each of these was refused. Cheap rules decide: cue words (English and
Chinese) and how many indexed papers the message names. The LLM is not
consulted: a message no rule claims is a question, the path that handles
anything. Explicit modes (the ``summarize``/``compare`` commands, the UI's
mode buttons) never come here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from assistant.crosslingual import dictionary_query, has_cjk
from assistant.filters import parse_filters
from assistant.lexical import tokenize
from assistant.synonyms import scoped

if TYPE_CHECKING:
    from assistant.retrieve import Scope

Kind = Literal["ask", "summarize", "compare", "list"]
KINDS: tuple[Kind, ...] = ("ask", "summarize", "compare", "list")

_COMPARE = re.compile(
    r"\b(?:compar(?:e|es|ed|ing|ison)|vs\.?|versus|differ(?:s|ent|ence|ences)?|distinguish(?:es)?|contrast|"
    r"similarit(?:y|ies)|(?:better|worse|more|fewer|larger|smaller) than|(?:have|has|share) in common|pros and cons|"
    r"which (?:one |of (?:them|the (?:two|three)) |(?:model|paper|method|approach|framework) )?"
    r"(?:is|was|performs?|works?|does|did) (?:better|best|worse)|"
    # chat words for a comparison (2026-12-07: answered paper by paper before)
    r"stacks? up|side[- ]by[- ]side|head[- ]to[- ]head|measures? up|alike|sets? (?:\w+ )?apart)\b|"
    r"比较|对比|区别|不同|相比|异同|哪个更好|哪个好|哪一个好|哪个更|谁更|优劣|孰优孰劣|(?:哪个|哪一个|谁)[^？?，,。]{1,8}?更",
    re.IGNORECASE)
#: A venue or a year as a message writes it ("NeurIPS", "2026").
_VENUE_OR_YEAR = r"(?:neurips|iclr|icml|(?:19|20)\d\d)"
#: The nouns a message describes a paper by ("the POCO paper", "the Earth science benchmark").
_DESCRIBED_NOUN = r"(?:paper|study|preprint|benchmark|model|method|work|framework|dataset)"
_TITLE = re.compile(r"\btitles?\b|标题|题目", re.IGNORECASE)
_METADATA = re.compile(
    r"\b(?:which|what) (?:venue|conference|year|track)\b|\b(?:published|appear(?:ed|s)?|accepted|presented) "
    # at a venue, not "the specialization appears in the model"
    r"(?:in|at)\b(?=\s*(?:which|what|neurips|iclr|icml|(?:19|20)\d\d|an?\s|conference|proceedings|workshop|"
    r"the\s(?:same\s)?(?:conference|venue|proceedings|main|workshop)|[?？]|$))|\bwhen was\b|\bwhat year\b|\bwhere was\b.*\bpublished\b|"
    r"\ban? (?:neurips|iclr|icml|\d{4})(?: \d{4})? (?:paper|submission)\s*[?？]|\b(?:venue|conference)\s*[?？]?\s*$|"
    r"\b(?:neurips|iclr|icml) or (?:neurips|iclr|icml)\b|\b(?:full |paper'?s? )?title\b|哪个会议|哪一年|发表在|发表于|标题|题目",
    re.IGNORECASE)
#: A yes-or-no question whether a named paper is of a venue or year ("was HEIST at ICLR 2026?", "is SPINT
#: from 2025 or 2026?"); said of no named paper, it asks for papers ("was there a paper on graphs at ICLR 2026?").
_VENUE_CHECK = re.compile(r"^\s*(?:is|was|are|were)\b[^?？]{0,60}?\s(?:(?:from|at|in|an?|the)\s+)?"
                          + _VENUE_OR_YEAR + r"\b(?:\s+\d{4})?(?:\s+(?:or|and)\s+[\w ]{2,16}?)?"
                          r"(?:\s+(?:papers?|ones?))?\s*[?？]?\s*$", re.IGNORECASE)
#: A paper's venue or year asked in other words, of a paper the message names or describes ("Tell me the venue
#: of the POCO paper", "Where did MiCRo appear?", "When did the STEER paper come out?", "HEIST: 2025 or 2026?",
#: "what's the publication year of the AGM paper?", "is the Earth science benchmark from ICLR?"): alone,
#: "venue" or "2025 or 2026" may scope a question about papers ("which papers from that venue use EEG?").
_VENUE_ASKED = re.compile(
    r"\bvenue\b|\bpublication (?:year|venue|date)\b|\byear of publication\b|"
    r"\b(?:where|when) did\s[^?？]{1,60}?\s(?:appear|come out|get published|get accepted)\s*[?？]?\s*$|"
    r"\b(?:19|20)\d\d or (?:19|20)\d\d\s*[?？]?\s*$|"
    r"^\s*(?:is|was)\s+the\s[^?？]{0,60}?\b" + _DESCRIBED_NOUN + r"\s+"
    r"(?:from|at|in|an?)\s+" + _VENUE_OR_YEAR + r"\b[^?？]{0,20}[?？]?\s*$", re.IGNORECASE)
#: A paper the message describes rather than names ("the POCO paper", "the Earth science benchmark", "那篇…论文").
_A_PAPER = re.compile(r"\b(?:the|that|this)\s[^?？,]{0,60}?\b" + _DESCRIBED_NOUN + r"\b|那篇|这篇", re.IGNORECASE)
#: Which of the named papers are of a venue or year ("which of these are NeurIPS 2025 papers: HetSyn, MiCRo,
#: STEER?", "which of HetSyn and MiCRo came out in 2025?"): the venue is what "which" asks, not a scope
#: ("which of these NeurIPS 2025 papers uses EEG?" asks something else).
_WHICH_VENUE = re.compile(r"\bwhich\b[^?？:：]{0,60}?\b(?:is|are|was|were|came out|appeared|got in)\s+"
                          r"(?:(?:from|at|in|an?|the)\s+)?" + _VENUE_OR_YEAR + r"\b(?:\s+\d{4})?"
                          r"(?:\s+(?:papers?|ones?|submissions?))?\s*(?:[?？:：]|$)", re.IGNORECASE)
_LIST = re.compile(
    r"\b(?:which|what|any|list(?: all)?(?: the)?|name(?: the)?|show me(?: the)?|find(?: me)?(?: the)?|"
    r"how many) (?:\w+ ){0,3}?(?:papers|studies|articles|submissions)\b(?! (?:were|was) used)|"
    r"\bare there (?:any )?papers\b|\b(?:which|what|any) works\b(?! (?:better|best|well|worse))|"
    r"哪些论文|哪几篇|有哪些|多少篇|列出|有没有[^？?。]{0,30}?(?:论文|文章)吗?\s*[？?。]?\s*$|"
    # "这批论文里有讲脉冲神经网络的吗？", "有研究扩散模型的论文吗？": is there a paper on …
    r"(?:论文|文章)(?:里|中|里面|当中)?有(?:讲|关于|研究|做|涉及|提到)[^？?。]{0,30}?的吗\s*[？?]?\s*$|"
    r"^\s*有(?:讲|关于|研究|做|涉及)[^？?。]{0,30}?的(?:论文|文章)吗\s*[？?]?\s*$",
    re.IGNORECASE)
#: "anyone" or "anybody", here or in the collection, as a chat message asks who works on something.
_ANYONE = r"any ?(?:one|body)(?: here| in (?:here|the collection))?"
#: A dash or colon set off before a trailing word ("grid cells — anything?", "quantum ML: got anything?").
_DASH = r"(?:\s-+|\s*[—–:]+)"
#: Papers asked for in chat words, naming none ("list everything about fMRI", "show me the LLM
#: interpretability work", "is anyone here working on …?"; 2026-12-07: questions, answered from one paper).
_LIST_CHAT = re.compile(
    r"^\s*list (?:all|everything|anything|every(?:one| paper)?)\b|\bshow me (?:the |all )?(?:[\w-]+ ){0,4}?(?:work|research)\b|"
    r"\b(?:is|are) (?:any ?one|any ?body|any (?:papers|authors|groups))(?: here| in (?:here|the collection))? "
    r"(?:working|work(?:s)?) (?:on|with)\b|"
    # "is anyone comparing cnns to …", "who's looking inside llms …" (2026-12-07: single questions, refused)
    r"\b(?:is|are) " + _ANYONE + r" (?!being\b)\w+ing\b|"
    r"^\s*who(?:'s| is| are)(?: here)? (?!being\b)\w+ing\b|"
    # "who works on spiking neural networks?" (2026-12-07: a question, "HetSyn works on …")
    r"^\s*who (?:(?:works?|worked) (?:on|with|in)|stud(?:y|ies)|researches|investigates)\b", re.IGNORECASE)
#: Chat words for a summary that the cues and the request words share: "what do the papers say", "the main
#: findings", "what is known about", "I want to understand", "brief me on".
_PAPERS_SAY = (r"what (?:(?:do|does|did) (?:the |these |those |our |my |all )?|(?:the|these|those|our|my|all) )"
               r"(?:papers?|collection|abstracts|literature|studies|works?|research)"
               r"(?: (?:here|in here|in the collection))? (?:say|tell(?: us| me)?|show|find|report|conclude)")
#: How long a requested review or summary should be ("a brief overview", "a quick rundown"): a request's word.
_BRIEF = r"brief|short|quick"
_MAIN_THINGS = r"(?:main|key|central|core|major) (?:ideas|findings|takeaways|themes|trends|contributions|insights|directions)"
_KNOWN_ABOUT = r"what(?:'s| is) known about|what do (?:we|you) know about"
_WANT_TO_KNOW = r"(?:want|need|'d like|would like) to (?:understand|learn about|know about|get a sense of|get up to speed on)"
_BRIEF_ME = r"brief me on|catch me up on|fill me in on|walk me through|get me up to speed on"
#: A summary asked for in so many words: it wins over a list cue ("which papers…? summarize them").
_SUMMARY_WORD = (r"\b(?:summar(?:y|ies|ize|ise|izing|ising)|overview|survey|recap|rundown|round-?up|gist|"
                 r"sum (?:(?:it|this|that|them|these|those|everything|it all) )?up|"
                 r"(?:a|an|your|short|brief|quick) synthesis|synthesi[sz]e (?:the|these|what|how|it|them)|literature review|consensus|"
                 r"(?:[\w-]+ )?review of (?:the )?(?:research|work|papers|literature|studies)|"
                 r"what are (?:the )?(?:[\w-]+ ){0,4}?papers about|"
                 + _PAPERS_SAY + r")\b|"
                 r"总结|概述|综述|概况|概括|梳理")
_SUMMARY = re.compile(
    _SUMMARY_WORD + r"|\b(?:landscape|state of the art|what(?:'s| is| are)? (?:out there|new|going on)|catch me up|"
    r"tell me about (?:the )?(?:papers|work|research)|"
    r"what (?:the|this|your|our) (?:collection|index|library) (?:has|holds|contains|says)|"
    r"papers (?:(?:from|at|in) (?:[\w-]+ ){1,2}?)?(?:on|about|dealing with|that deal with))\b",
    re.IGNORECASE)
_SUMMARY_ASKED = re.compile(_SUMMARY_WORD, re.IGNORECASE)
#: "The (big) survey of …" is a paper the message asks about, not a request for one.
_NAMED_SURVEY = re.compile(r"\b(?:the|this|that)\s+(?:[\w-]+\s+){0,2}?survey\b", re.IGNORECASE)
#: A topic asked about in chat words ("anything on gesture recognition?", "papers that study animal
#: behavior", "what's in here about EEG?"): a summary when the message names no paper.
_TOPIC_CHAT = re.compile(
    r"^\s*(?:(?:is|are) there )?(?:anything|any (?:work|research))(?: (?:in )?here| in (?:the|this) collection)? "
    r"(?:on|about|regarding|related to|using|that uses?)\b|"
    # "grid cells / path integration models — anything?", "quantum ML — got anything?"
    + _DASH + r"\s*(?:got |have you got )?anything(?: (?:in )?here)?(?:\s*[?？]?\s*$| (?:on|about)\b)|"
    # "anything that splits a model into experts?", "anyone training one model on …?", "epilepsy work?"
    r"^\s*(?:(?:is|are) there )?anything (?:that|which)\b|^\s*any ?one (?:here )?(?!being\b)\w+ing\b|"
    r"^(?!\s*(?:does|do|did|is|are|was|were|can|could|how|what|why|which|who|when|where|will|would|should)\b)"
    r"\s*[\w/ -]{3,60}?\b(?:stuff|work|research)\s*[?？]|"
    r"^\s*(?:i'?m |i am )?(?:looking for|interested in|searching for|curious about)\b|"
    r"^\s*(?:papers|work|research|studies) (?:that|which|on|about|using|studying|where|in|from|at|with|for)\b|"
    # "what research is there on diffusion models?", "what's the most recent work on memory?" (2026-12-07:
    # questions; the first cited the LLM-opinions paper for diffusion models)
    r"^\s*what (?:research|work|studies) (?:is|are|has been done|have been done|exists?)(?: there)?"
    r" (?:on|about|in|into|regarding)\b|^\s*(?:is|are) there (?:any )?(?:research|work) (?:on|about|into|regarding)\b|"
    r"\b(?:the )?(?:latest|most recent|newest) (?:work|research|papers|studies|advances) (?:on|about|in)\b|"
    r"^\s*(?:[\w/-]+\s+){1,5}?(?:papers|studies)\s*[?？]\s*\S|"  # "stock price forecasting papers? like …"
    r"^\s*(?:(?:neurips|iclr|icml)(?: ?'?\d{2,4})?|\d{4}) (?:papers|studies) (?:that|which|on|about|using|with)\b|"
    r"\bwhat(?:'s| is)? (?:in here|here|in the collection) (?:on|about)\b|\bwhat do (?:we|you) have (?:on|about)\b|"
    r"\bbig picture\b|\btell me about (?:the )?(?:[\w-]+ ){1,3}(?:papers|work|research)\b|"
    r"\b(?:" + _KNOWN_ABOUT + r")\b|"
    r"\bwhat has been (?:done|published|shown|found) (?:on|in|about|with|for)\b|"
    r"\b" + _MAIN_THINGS + r"\b|"
    r"^\s*(?:(?:can|could) you )?(?:explain|describe|walk me through|brief me on|introduce|tell me about)\s+"
    r"(?:the\s+)?(?:research|work|papers|studies|literature|field|stuff)\b|"
    r"\bi " + _WANT_TO_KNOW + r"\b|"
    r"\bwhat are (?:people|researchers|folks|the papers|these papers) doing\b|\bhappening (?:in|with|on|around)\b|"
    r"\b(?:across|in) (?:these|the|all the|all) papers\b|\bin (?:this|the) collection\b|\bhigh[- ]level\b|"
    r"\bstate of (?:the )?(?:[\w-]+ ){0,4}?(?:field|research|work)\b|"
    r"^\s*(?:" + _BRIEF_ME + r")\b|"
    r"\bwhat (?:themes|trends|directions)\b|\bcommon themes\b|"
    r"研究进展|最新进展|讲讲|有什么进展|(?:主要)?趋势|主要方向|"
    r"(?<![那这一某该]篇)关于.{1,20}的(?:论文|工作|研究)", re.IGNORECASE)  # "那篇关于…的论文": one paper
_QUESTION = re.compile(
    r"\?|？|^\s*(?:what|which|who|whom|whose|when|where|why|how|is|are|does|do|did|can|could|should|would|will|"
    r"explain|describe|tell|give|list|show|find|name)\b|[吗呢么]|什么|哪|怎么|如何|为什么|多少|是否", re.IGNORECASE)
#: What follows an "it" that stands for no paper: "is it possible to decode speech from EEG?", "it seems that…".
DUMMY_IT = (r"(?:(?:\s+(?:is|was)|'s)?\s+(?:possible|impossible|true|known|common|likely|necessary|worth|better|"
            r"easier|harder|hard|easy|clear|important|ok|okay|feasible|fair|reasonable|normal|typical)|"
            r"\s+(?:seems|appears|turns out|looks like))\b")
_PRONOUN = re.compile(rf"\b(?:it(?!{DUMMY_IT})|its|they|them|their|this|that|these|those|the (?:paper|method|model|"
                      r"approach|first|second|former|latter|other|two|same))\b|它|它们|这篇|该|这个|那个", re.IGNORECASE)
_SIDES = re.compile(
    r"(?:compare|comparing|comparison of|between|contrast|differences? between)?\s*(?P<a>.+?)\s+"
    r"(?:and|with|to|vs\.?|versus|against|or|from|和|与|跟|同)\s+(?P<b>.+)", re.IGNORECASE)
#: The request around a topic ("can you give me an overview of …", "which papers deal with …"):
#: left out of the search query, where it would only dilute the topic.
_REQUEST = re.compile(
    # first: its "what" and "papers" would otherwise go as a list's, leaving "say about"
    r"\b(?:" + _PAPERS_SAY + r"(?: (?:about|on|regarding))?|"
    r"(?:what|(?:is|are) there)(?: any)? (?:research|work|studies)(?: (?:is|are|has been done|have been done|exists?))?"
    r"(?: there)?(?= (?:on|about|in|into|regarding)\b)|"
    r"(?:what(?:'s| is) )?the consensus(?:,? if any,?)?(?: on| about)?|"
    r"(?:i|we) " + _WANT_TO_KNOW + r"|"
    r"explain|describe|introduce|" + _BRIEF_ME + r"|"
    r"(?:provide|give|write)(?: me| us)? (?:an? )?(?:(?:structured|" + _BRIEF + r") )?(?:review|synthesis)(?: of)?|"
    r"(?:a |an )?(?:(?:structured|" + _BRIEF + r") )?(?:literature review|synthesis)(?: of| on)?|"
    r"(?:what(?:'s| is) )?the state of|state of (?:the )?(?:field|research|work)|"
    r"what(?:'s| has)? been happening(?: in| with| on| around)?|(?:across|in) (?:these|the|all(?: the)?)(?= papers\b)|"
    r"(?:across|in) these\b|what themes come up(?: in)?|(?:common |main )?themes(?: in)?|"
    r"high[- ]level|what are (?:people|researchers|folks|the papers|these papers) doing(?: with| on| in| about)?|"
    r"tl;?dr(?: of)?|pls|plz|stuff|etc|in here|here|in the index|what(?:'s| is)(?= (?:on|in)\b)|"
    r"(?:compare|contrast)(?: the)?(?: (?:general|different|main))?(?: approaches)?(?: (?:the papers|they) take)?(?: to)?|"
    r"(?:can|could|would) you|please|(?:give|show|tell|find) me|i(?:'d| would) like|"
    # the question's words go, the topic and venue words between them and "papers" stay ("which ICLR 2026 papers …")
    r"(?:which|what(?: are)?|any|list(?: all)?|name|are there(?: any)?|how many)(?= (?:[\w-]+ ){0,3}?(?:papers|studies|works|"
    r"articles)\b)|(?:papers|studies|works|articles) (?:are|is|that|which|do|does)(?: there| (?:we|you|i) have)?|"
    # "what's the quick rundown on", "give me a brief overview": the adjective and article go with the noun
    r"(?:what(?:'s| is) )?(?:(?:a|an|the) )?(?:(?:rough|general|one-(?:line|sentence)|" + _BRIEF + r") )?"
    r"(?:summar(?:y|ies|ize|ise)|overview|survey|recap|rundown|round-?up|landscape|gist)|state of the art|"
    r"what(?:'s| is) the deal(?: with)?|everything|whatever(?: (?:you|we) (?:have|'ve got|got))?|"
    r"(?:what )?(?:do|does|did) (?:you|we|i) have|(?:what )?(?:have|'ve) (?:you|we) got|what(?:'s| is) (?:covered|there)|"
    r"sum (?:(?:it|this|that|them|these|those|everything|it all) )?up(?: for (?:me|us))?|"
    r"what(?:'s| is| are)? (?:out there|new|going on|in here)|catch me up|(?<!\d\d\d\d )(?:the )?(?:papers?|studies|articles)|"
    r"in (?:this|the) collection|"
    r"(?:(?:is|are) there )?(?:anything|any(?= (?:work|research)\b))|(?:the )?big picture|"
    r"(?:(?:is|are) )?" + _ANYONE + r"|^\s*who(?:'s| is| are)(?: here)?|stuff|"
    r"(?:" + _KNOWN_ABOUT + r")|what has been (?:done|published|shown|found)|"
    r"(?:what are )?(?:the )?" + _MAIN_THINGS + r"(?: (?:of|from|on|in|about|regarding))?|"
    # "what are the common themes in the EEG papers", "the main approaches to forecasting … in these papers"
    r"(?:what are )?(?:the )?(?:main|key|common|major|different) (?:approaches|methods|techniques|themes)"
    r"(?: (?:to|for|in|of|across))?|"
    # "what do the spiking network papers have in common", "how do the memory papers differ": see _TRAILING
    r"(?:what|how) (?:do|does|did)(?= (?:the|these|those|all) )|"
    r"work|research|help me(?: to)?(?: find| look for| search for)?|for (?:me|us)|"
    r"^\s*who (?:(?:works?|worked)(?= (?:on|with|in)\b)|stud(?:y|ies)|researches|investigates)|"
    r"(?:what(?:'s| is| are) )?(?:the )?(?:latest|most recent|newest)(?= (?:work|research|papers|studies|advances)\b)|"
    r"advances|"
    r"(?:i'?m |i am )?(?:looking for|interested in|searching for|curious about)|"
    r"(?:top|best|good|great|key|important|interesting|relevant|notable|main|major)"
    r"(?= (?:[\w-]+ ){0,2}?(?:papers|studies|works|articles)\b)|"
    # "recommend papers on LLM interpretability": a request, not the recommender-systems topic
    r"(?:recommend|suggest)(?: (?:me|us|some|any|a|few|couple|of|good|great|interesting|relevant|useful|key))*"
    r"(?= (?:[\w-]+ ){0,2}?(?:papers?|readings?|works?|studies)\b)|"
    r"briefly|quickly|short|a bit)\b[,:]?|哪些论文|哪几篇|有哪些|总结一下|总结下|总结|这里面|这里|这批|概述|综述|概况|概括|梳理|简单|一下|论文|"
    r"(?:的)?(?:最新)?研究进展|介绍一下|介绍|讲讲|给我|帮我|整体|有没有|里面|都在做什么|是什么|的进展|进展|[?？]",
    re.IGNORECASE)
#: A question whose answer is a paper ("which ICLR 2026 paper models …?", "… - what's it called?",
#: "did NeurIPS 2025 have a paper on …?"), not one asking about a paper it describes ("that
#: scaling-laws paper — how many cells?"), nor "which one" of things the question lists.
_IDENTIFY = re.compile(
    r"\b(?:which|what) (?:(?!papers\b|studies\b|works\b|each\b|does\b|do\b|did\b|is\b|are\b|was\b|were\b)"
    r"[\w'-]+ ){0,3}?(?:paper|study|article|submission)\b|"
    r"\bwhat(?:'s| is) (?:it|that|this|the paper|the method|the model) called\b|\bname\s*[?？]?\s*$|"
    r"\bthe name of (?:the|that|this) (?:paper|method|model)\b|"
    r"\b(?:papers|studies|works)\b[^?？.;]{0,20}?\bwhich one\b|\bwhich one of (?:the|these|those) (?:[\w'-]+ ){0,3}?"
    r"(?:papers|studies|works)\b|"
    r"\b(?:is there|do (?:we|you) have|(?:did|does|do) [\w' -]{1,30}? have) an? (?:paper|work|study)\b|"
    r"^\s*(?:the|that) (?:[\w'-]+ ){0,4}?(?:paper|one|work|study) (?:that|which|where|on|about|with)\b[^?？]*$|"
    r"^\s*(?:the|that) (?:[\w'-]+ ){0,5}?paper\s*[.]?\s*$|"
    r"哪篇|哪一篇|(?:论文|文章)(?:叫什么|的名字)", re.IGNORECASE)
_LEADING = re.compile(r"^(?:\s|\b(?:of|on|about|for|regarding|with|in|to|and|an?|the|that|which|these|those|do|does|from|deal(?:ing)? with|"
                      # what a venue filter leaves: "(what did) NeurIPS 2025 have on", "(in the) ICLR 2026 set, any…"
                      r"(?:what )?(?:did|do|does) have|have|"
                      r"work(?:ing)? (?:with|on)|focus(?:ing)? on|related to|us(?:e|es|ing)|me|each|every)\b|\b(?:set|batch),|关于)+", re.IGNORECASE)
#: Words the request leaves after its topic ("what are the EEG papers about?"), a clause set off by a dash
#: that asks for papers and names nothing ("— got" of "grid cells — got anything?", "— using them", "- who
#: uses it"), a Chinese modifier's or question's last particle ("做脑电信号解码的", "…的吗").
_TRAILING = re.compile(r"(?:\s+(?:about|on|of|for|in))+\s*$|"
                       r"\s+(?:(?:have|share) in common|differ(?: from (?:each other|one another))?)\s*$|"
                       + _DASH + r"(?:\s*\b(?:got|have|you|we|who|what(?:'s)?|"
                       r"any|uses?|using|it|them|that|this|on|in|an?)\b)*\s*$|(?:\s*[的吗呢])+$", re.IGNORECASE)
#: A question about the papers asked after their topic: what to tell of each, not words of the topic.
#: "which papers use EEG, and what tasks do they evaluate on?", "anything on forecasting? what
#: recordings do they use?", "哪些论文用了脑电数据？它们在哪些任务上做了评估？" searched "EEG, and
#: what tasks do they evaluate", and listed SPINT, which says "tasks" and "evaluate" and not EEG.
#: It starts with a question word after a comma, a dash, a question mark or "and", and refers back
#: to the papers ("they", "each", "its"); "papers on how neurons learn" keeps its "how".
_FOLLOW_ON = re.compile(
    r"(?:\s*[,;?？，；]\s*(?:and\s+)?|\s+(?:-+|—|–)\s*(?:and\s+)?|\s+(?:and|&)\s+)"
    r"(?:what|which|how|where|when|why|who)\b[^.?!？]*?\b(?:they|them|their|each|these|those|it|its)\b"
    r"[^.?!？]*[.?!？]?\s*$|"
    r"[？?，,]\s*(?:那么|以及|并且|而且)?(?:它们|这些论文|这些工作|各自)[^？?]*[？?]?\s*$",
    re.IGNORECASE)
#: A question asked of each paper of a topic, the topic after it: "which datasets are used across the
#: EEG foundation model papers?", "how many downstream tasks do the EEG foundation models get tested on?",
#: "what tasks are the spiking neural network papers evaluated on?" (2026-12-07: single questions,
#: answered from the first few papers found). The topic is a plural after "the", "these", "those" or
#: "all", no word of it an article or a preposition ("the difference between the two models" is none).
_TOPIC_WORD = r"(?!(?:the|a|an|these|those|this|that|between|of|and|or|vs|with|to|in|on|for|by|from)\b)[\w-]+"
_ASKED_OF_TOPIC = re.compile(
    r"^\s*(?:what|which|how many|how much)(?:\s+(?!(?:the|these|those|all)\b)[\w-]+){0,4}?\s+"
    r"(?:do|does|did|are|is|were|was|have|has)\s+(?:[\w-]+\s+){0,2}?(?:(?:in|across|by|among|from|for)\s+)?"
    r"(?P<topic>(?:the|these|those|all(?: of)?(?: the)?)\s+(?P<words>(?:" + _TOPIC_WORD + r"\s+){1,4}?)"
    r"(?P<noun>papers|studies|works|articles|models|networks|benchmarks|systems))\b"
    r"(?P<tail>(?!\s+(?:have|share)\s+in\s+common|\s+differ)[^?？]*)[?？]?\s*$", re.IGNORECASE)
#: The same asked in Chinese: the topic, "的论文", then "都", "分别" or "各自" and what is asked of each
#: ("脑电基础模型的论文都用了哪些数据集？", "脉冲神经网络的论文分别在哪些任务上做了实验？").
_ASKED_OF_TOPIC_ZH = re.compile(
    r"^\s*(?:这些)?(?![这那]些|[这那]几篇|它们)(?P<topic>[^，,？?。；;\s]{2,20}?)的?(?:论文|文章|工作|研究)"
    r"(?P<tail>(?:都|分别|各自|各)[^，,？?。]*?(?:哪些|哪个|什么|多少|几)[^？?。]*)[？?。]?\s*$")
#: The preposition that leads into the topic ("… used across the EEG papers"), left out of what is asked.
_BEFORE_TOPIC = re.compile(r"\s+(?:in|across|by|among|from|for)\s*$", re.IGNORECASE)
#: The plural nouns that say "papers" and no more: not words of the topic ("the EEG papers" is "EEG").
_PAPERS_NOUN = frozenset({"papers", "studies", "works", "articles"})
#: Words of a bare keyword query at most (longer phrases read as questions).
KEYWORD_WORDS = 6
#: Papers asked for in the plural: a few words saying so ("fMRI papers", "NeurIPS 2025 EEG papers") ask for a topic.
_PLURAL = re.compile(r"\b(?:papers|studies|articles)\b", re.IGNORECASE)


#: A question about the collection itself, not about papers on a topic.
_COLLECTION = re.compile(
    r"^\s*(?:(?:how many|number of|count(?: the)?) (?:papers|abstracts|articles|documents)(?: (?:are|do you have|do we "
    r"have|is|are there|have you got))?(?: (?:in (?:the |this )?(?:collection|index|database|corpus|library)|indexed|"
    r"loaded|here|in here|there|in total|total|overall|altogether))*|(?:list|show(?: me)?|give me)(?: (?:all|every))?"
    r"(?: (?:the|of the))? (?:papers|abstracts)(?: (?:in (?:the |this )?(?:collection|index|database|corpus)|indexed|"
    r"you have|here))?|(?:what|which) (?:venues|conferences)(?: (?:are|do you|does it|do you have))?(?: (?:covered|"
    r"cover|included|indexed|in the collection|in here|have|there))?|what(?:'s| is) in (?:the|this|your) "
    r"(?:collection|index|database|corpus|library))\s*[?？.!]*\s*$|"
    r"^\s*(?:一共|总共)?(?:有)?多少篇(?:论文)?\s*[?？]?\s*$|^\s*列出所有(?:的)?论文|^\s*有哪些会议\s*[?？]?\s*$",
    re.IGNORECASE)
#: Greetings, thanks and "help": a message with nothing to search for.
_SMALL_TALK = re.compile(
    r"^\s*(?:hi|hello|hey|hallo|yo|good (?:morning|afternoon|evening)|thanks?(?: a lot| you(?: very much)?)?|thx|ty|"
    r"ok(?:ay)?|cool|great|nice|bye|goodbye|help|what can you do|how do (?:i|you) use (?:this|you|it)|你好|您好|谢谢|"
    r"多谢|再见|帮助)\s*[!.。！?？]*\s*$", re.IGNORECASE)
#: A path the message turns down ("I don't need a summary, just…", "not after a list of which papers…"):
#: its words are no cue for it.
_DECLINED = re.compile(r"\b(?:(?:i )?(?:don'?t|do not) (?:need|want)|no need for|not (?:after|looking for)|without|"
                       r"rather than|instead of)\s+(?:an?\s+|the\s+)?(?:summary|overview|synthesis|list)\b"
                       r"(?: of (?:which|what) (?:papers|studies|works)[^,.;]*)?", re.IGNORECASE)
#: What several papers do, compared without naming any ("compare the approaches the papers take to …").
_SEVERAL = re.compile(r"\b(?:papers|approaches|methods|studies|works|techniques)\b|"
                      # "how do the EEG foundation models differ from each other?": a plural asked after
                      # "the", and not two papers described ("the retina CNN and the Dale's law paper")
                      r"\b(?:the|these|those|all(?: the)?) (?:(?!and\b|or\b|vs\b)[\w-]+ ){0,4}?[\w-]+[^\Ws]s "
                      r"differ (?:from )?(?:each other|one another)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Route:
    """Where a message goes, what decided it (shown to the user), and for a
    comparison the indexed papers it names (positions in the corpus).
    ``each``: one question asked of several named papers ("how many tasks were
    CSBrain and REVE each evaluated on?"), answered paper by paper."""

    kind: Kind
    reason: str
    papers: list[int] = field(default_factory=list)
    keywords: bool = False
    metadata: bool = False
    each: bool = False
    aspects: list[str] = field(default_factory=list)
    #: About the collection itself ("how many papers are there?", "list all papers"), or small talk ("hi"):
    #: answered from the index, with no search and no model.
    collection: bool = False
    small_talk: bool = False


#: A word that compares, after which "in/on/in terms of …" says what on ("differ in how they tokenize EEG").
_COMPARING = re.compile(r"\b(?:compar\w*|differ\w*|distinguish\w*|contrast\w*|similar\w*|vs\.?|versus|"
                        r"stack(?:s)? up|better|worse)\b", re.IGNORECASE)
_ON = re.compile(r"\s(?:in terms of|with respect to|with regard to|when it comes to|regarding|concerning|as regards|"
                 r"in|on|for)\s+", re.IGNORECASE)
#: Between the comparing word and "in/on": the message has moved on to a question of its own.
_ASIDE = re.compile(r"[—–:?？]|\b(?:how|what|which|where|why|who|whose|do|does|did|each)\b", re.IGNORECASE)
#: Where an aspect ends: the message goes on to the papers or to another request.
_ASPECT_END = re.compile(r"[?？.!;；:：]|,\s*(?:how|what|which|why|where|who|do|does|did|is|are|can)\b|"
                         r"\s(?:between|among|from|than|versus|vs\.?|compared|while|whereas|because|"
                         r"and (?:how|what|which|why|where|who|also)|but)\b", re.IGNORECASE)
_ASPECT_SPLIT = re.compile(r"\s*(?:,|/|、|\band\b|&|和|与|以及)\s*", re.IGNORECASE)
_ASPECT_LEAD = re.compile(r"^(?:(?:the|their|its|a|an|each|both|how|what|which|the ways?|ways?|they|it|them|"
                          r"each one|terms of|do|does|did|are|is)\s+)+", re.IGNORECASE)
_ASPECT_TAIL = re.compile(r"\s+(?:(?:do|does|did)\s+)?(?:(?:they|it|each(?: one)?|both|the two|them|of (?:each|both|"
                          r"them|the two|these|those)(?: papers?| ones?)?)(?:\s+[\w-]+)?|respectively)$", re.IGNORECASE)
#: Words that say how to answer, not what to compare on ("in a table", "in detail", "for me").
_PRESENTATION = re.compile(r"\b(?:table|detail|details|depth|brief|briefly|short|words|sentences?|paragraphs?|bullets?|"
                           r"points|english|chinese|plain|simple terms|general|overall|ways?|me|us|you|them|practice|"
                           r"summary|nutshell|side[- ]by[- ]side|head[- ]to[- ]head)\b", re.IGNORECASE)
#: Words that point back at the papers, or say nothing: an aspect of only these ("the backbone in each") is none.
_POINTERS = frozenset({"each", "both", "either", "all", "it", "they", "them", "this", "that", "these", "those", "one",
                       "ones", "the", "a", "an", "of", "in", "on"})
#: Longer than this, the words after "differ in" are a clause of the message, not an aspect to tabulate.
ASPECT_MAX_WORDS = 6
#: The Chinese form: "在数据上有什么区别", "在评测任务方面有何不同".
_ZH_ASPECT = re.compile(r"在(?P<aspect>[^，,。？?在]{1,12}?)(?:上|方面|层面)")


def asked_aspects(message: str, named: Callable[[str], list[int]]) -> list[str]:
    """What a comparison asks to compare the papers on ("how do CSBrain and
    CodeBrain differ in tokenizing EEG?" -> ["tokenizing EEG"]; "compare
    REVE and CSBrain on data and subjects" -> ["data", "subjects"]; "REVE
    vs CSBrain: data, channels"; "…在数据上有什么区别" through the term
    dictionary): the table's first rows, so the table answers the message
    and not only the default aspects. Nothing when the message names none
    ("how does CSBrain differ from REVE?") or only how to answer ("in a
    table"); a part that names a paper is no aspect."""
    tails: list[tuple[str, str]] = []  # (the message before an aspect, the text from it on)
    if (verb := _COMPARING.search(message)) is not None:
        tails += [(message[:m.end()], message[m.end():]) for m in _ON.finditer(message, verb.end())
                  if not _ASIDE.search(message[verb.end():m.start()])]  # not "… — how does each sit on the head?"
        head, colon, tail = message.partition(":")
        if colon and _COMPARING.search(head) and not _QUESTION.search(tail):  # "REVE vs CSBrain: data, channels"
            tails.append((head, tail))
    if _COMPARE.search(message):
        tails += [("", dictionary_query(m.group("aspect"))) for m in _ZH_ASPECT.finditer(message)]
    tails.append(_after_names(message, named))  # "spint vs neuropaint architecture"
    for before, tail in tails:
        known = set(named(before))
        aspects = [a for part in _ASPECT_SPLIT.split(_ASPECT_END.split(tail, maxsplit=1)[0])
                   if (a := _ASPECT_TAIL.sub("", _ASPECT_LEAD.sub("", part.strip(" ,.\"'"))).strip())
                   and re.search(r"[^\W\d_]{2}", a) and set(a.casefold().split()) - _POINTERS
                   and len(a.split()) <= ASPECT_MAX_WORDS and not _PRESENTATION.search(a) and not named(a)
                   and set(named(f"{before}{part}")) <= known]  # nor the end of a name ("Benchmark for the Earth sciences")
        if aspects:
            return list(dict.fromkeys(aspects))
    return []


#: Words after the last named paper that are no aspect: the paper's own noun ("…rule paper"), or a
#: phrase that goes on ("as foundation models", "for OOD generalization" is ``_ON``'s).
_AFTER_NAMES_NOT = re.compile(r"(?:(?:papers?|models?|works?|stud(?:y|ies)|methods?|ones?)\s*[?？.!]*$|"
                              r"(?:as|for|with|to|by|at|of|from|about|in|on|and|or)\b)", re.IGNORECASE)


#: Most words after the last named paper that can be an aspect ("… architecture", "… data and subjects").
_AFTER_NAMES_WORDS = 4


def _after_names(message: str, named: Callable[[str], list[int]]) -> tuple[str, str]:
    """The few words after the last paper a message names, when they ask
    nothing ("spint vs neuropaint architecture" -> "architecture"), as a
    (before, after) pair like ``asked_aspects``'s other forms; an empty
    after when the message goes on to a question or says more."""
    words = message.split()
    wanted = set(named(message))
    # the shortest run of words naming every paper, looked for among the last few only (each look scans
    # every name): one that leaves more words after it already names them all
    first = max(len(words) - _AFTER_NAMES_WORDS, 1)
    if first > 1 and set(named(" ".join(words[:first - 1]))) >= wanted:
        return message, ""
    end = next((i for i in range(first, len(words) + 1) if set(named(" ".join(words[:i]))) >= wanted), len(words))
    rest = " ".join(words[end:])
    if (not wanted or not rest or len(words) - end > _AFTER_NAMES_WORDS or has_cjk(rest) or _ASIDE.search(rest)
            or _QUESTION.search(rest) or _AFTER_NAMES_NOT.match(rest)):
        return message, ""
    return " ".join(words[:end]) + " ", rest


#: A follow-up that carries the last question over to something else ("what about CodeBrain?", "and
#: for REVE?", "same for POCO", "那 REVE 呢？"): it names no question of its own.
_CARRY_OVER = re.compile(r"^\s*(?:(?:ok(?:ay)?|and|so|also)[,\s]+)?(?:what|how) about\b|^\s*(?:and|also)\s+(?:for\s+)?\S+"
                         r"(?:\s+\S+)?\s*[?？]?\s*$|\bsame (?:question )?for\b|\bthe same for\b|呢\s*[?？]?\s*$",
                         re.IGNORECASE)


#: A pronoun in a set phrase that asks for a shorter answer, not for an earlier turn's subject.
_IDIOM = re.compile(r"\b(?:sum (?:it|this|that|them) up|(?:keep|make) it (?:short|brief|quick|simple))\b",
                    re.IGNORECASE)
#: Words that say nothing of a subject: "sum it up for me, please" still leans on the last turn.
_NO_SUBJECT = frozenset(tokenize("me us please pls plz quick quickly brief briefly short now again thanks"))


def needs_context(message: str) -> bool:
    """A follow-up that leans on earlier turns ("how does it compare with
    POCO?", "what about CodeBrain?"); only these pay for a rewrite by the LLM.
    Not for "… sum it up for me" after a topic of its own: rewritten in the
    UI's chat as a follow-up of a comparison, "anything using mamba…? sum it
    up for me" listed the comparison's first paper."""
    rest = _IDIOM.sub(" ", message)
    if not set(tokenize(rest)) - _NO_SUBJECT:
        rest = message
    return bool(_PRONOUN.search(rest) or _CARRY_OVER.search(rest))


def carries_over(message: str) -> bool:
    """Whether the message asks the last question again of something else
    ("what about HEIST?", "and for POCO?", "same for SPINT", "那 REVE 呢？"):
    it asks nothing of its own, even once its pointers are named."""
    return bool(_CARRY_OVER.search(message))


def describes_paper(message: str) -> bool:
    """Whether the message is about a paper it describes rather than names
    ("the paper that fits learning rules…", "the Earth science benchmark",
    "那篇…论文"): its venue is that paper's record, and its premises are that
    paper's (see ``answerability.missing``)."""
    return _A_PAPER.search(message) is not None


def compares(message: str) -> bool:
    """The message asks to compare ("… compared with the Earth science
    benchmark?"), even when it names only one paper and is routed as a question."""
    return bool(_COMPARE.search(message))


#: A side of a comparison that describes a paper rather than naming it ("the Hebbian STDP paper", "the paper
#: that infers learning rules from behavior"); not a baseline or a method no paper is ("a classical solver").
_PAPER_NOUNS = ("paper", "model", "method", "study", "work", "benchmark", "dataset", "framework", "approach")
_DESCRIBED = re.compile(r"^(?:the|that|this)\b.*?\b(?:" + "|".join(_PAPER_NOUNS) + r")s?\b", re.IGNORECASE)
#: Two descriptions set against each other, neither naming a paper ("AI debate paper vs the board game
#: evaluation paper: …"): only around "vs" or "compared with", where both sides are plainly papers.
_BOTH_DESCRIBED = re.compile(r"^\s*(?:compare\s+)?(?P<a>[^:;,?？]+?)\s+(?:vs\.?|versus|compared (?:with|to))\s+"
                             r"(?P<b>[^:;,?？—–]+?)\s*(?:[:;,?？—–]|\s-\s|$)", re.IGNORECASE)
#: Two papers described side by side and asked about together, with no word of comparison: "Between the
#: study of … and the gradient-free framework for …, which performed …?", "The study on AI debate … and the
#: study probing … both involve groups of people: which groups does each consider?" (dev: both single
#: questions, answered about one of the two), "In the AI debate study and the board game study, who …
#: in each?", "Which used more participants: the AI debate study or the LLM opinion probing study?".
_PAIR_DESCRIBED = re.compile(r"(?:^\s*(?:(?P<lead>between|for|in|across)\s+)?|[:：—–]\s*)"
                             r"(?P<a>(?:the|that|this)\s.+?)\s+(?P<join>and|or)\s+(?P<b>(?:the|that|this)\s.+?)"
                             r"(?:\s+(?=both\b|each\b)|\s*[,:;?？—–]|\s*$)", re.IGNORECASE)
#: What asks of the two papers together: "both", "each", or the "between" the message opens with.
_TOGETHER = re.compile(r"\b(?:both|each)\b", re.IGNORECASE)
#: A message asking which of two ("Which used more …: the … study or the … study?").
_WHICH = re.compile(r"^\s*(?:which|who)\b", re.IGNORECASE)
#: A side that ends as a paper's description does ("AI debate paper", "the mouse scaling study").
_DESCRIPTION_END = re.compile(r"\b(?:paper|study|work|benchmark|dataset|framework)$", re.IGNORECASE)
#: Fewest words of a description (its determiner and final noun left out) that may pick a paper:
#: "the model vs the baseline" describes nothing.
DESCRIPTION_WORDS = 2


def described_sides(message: str, named: Callable[[str], list[int]]) -> list[str]:
    """The descriptions a comparison sets against the one paper it names
    ("compare HetSyn and the Hebbian STDP paper" -> ["the Hebbian STDP
    paper"]) or against each other when it names none ("AI debate paper vs
    the board game evaluation paper: where does …" -> both), or two
    descriptions asked about together ("Between the study of … and the …
    framework for …, which …?", "the study on … and the study probing …
    both …: which … does each …?"), for the caller to resolve to papers;
    [] when the message compares nothing, or names a paper on both sides."""
    sides = _SIDES.search(message) if compares(message) else None
    if sides is None:
        pair = _PAIR_DESCRIBED.search(message)
        together = pair is not None and (
            (pair.group("lead") or "").casefold() == "between" or _TOGETHER.search(message, pair.end("b"))
            or (pair.group("join").casefold() == "or" and _WHICH.match(message)))
        return _descriptions(pair, named) if together else []
    a_named, b_named = bool(named(sides.group("a"))), bool(named(sides.group("b")))
    if a_named != b_named:
        side = sides.group("b" if a_named else "a").strip()
        return [side.rstrip(" ?？.!")] if _DESCRIBED.match(side) else []
    return [] if a_named else _descriptions(_BOTH_DESCRIBED.search(message), named)


def _descriptions(both: re.Match[str] | None, named: Callable[[str], list[int]]) -> list[str]:
    """The two sides ``a`` and ``b`` of ``both`` when each describes a paper
    in enough words and neither names one."""
    if both is None:
        return []
    described = [both.group(g).strip() for g in ("a", "b")]
    if all((_DESCRIBED.match(d) or _DESCRIPTION_END.search(d)) and _described_words(d) >= DESCRIPTION_WORDS
           and not named(d) for d in described):
        return described
    return []


def _described_words(description: str) -> int:
    """The words of a description that say which paper it is: not its
    determiner nor the noun that says it is a paper."""
    words = re.findall(r"[\w-]+", description.casefold())
    return len([w for w in words if w not in {"the", "that", "this", "one", *_PAPER_NOUNS}])


def is_keyword_query(message: str) -> bool:
    """A few topic words and no question ("EEG channel permutation"): the
    user wants the paper they point to. Venue and year words are not
    counted: "EEG papers from ICLR 2026 and NeurIPS 2025" is two topic words."""
    return not _QUESTION.search(message) and 0 < len(parse_filters(message).question.split()) <= KEYWORD_WORDS


def identifies(message: str) -> bool:
    """The message asks which paper something is: its answer must name the paper."""
    return bool(_IDENTIFY.search(message))


def topic_of(message: str) -> str:
    """The topic a summary or list request is about: "can you give me an
    overview of the EEG papers?" -> "EEG" (the whole message when nothing is left)."""
    return topic_parts(message)[0]


def follow_on(message: str) -> str:
    """The question a summary or list request asks of each paper beside its
    topic ("…, and what tasks do they evaluate on?" -> "what tasks do they
    evaluate on?"), which ``topic_of`` leaves out; "" when there is none."""
    return topic_parts(message)[1]


def topic_parts(message: str) -> tuple[str, str]:
    """``topic_of`` and ``follow_on`` from one reading of the message: the
    question asked of each paper stands before the topic ("how many tasks do
    the EEG papers use?" -> "EEG", "how many tasks do they use"; "which
    datasets are used across the EEG papers?" -> "which datasets are used")
    or after it ("…, and what tasks do they evaluate on?")."""
    if asked := _asked_of_topic(message):
        if asked.re is _ASKED_OF_TOPIC_ZH:
            return asked.group("topic"), asked.group("tail")
        words, noun = asked.group("words").strip(), asked.group("noun")
        head = message[: asked.start("topic")]
        bare = _BEFORE_TOPIC.sub("", head)
        return (words if noun.casefold() in _PAPERS_NOUN else f"{words} {noun}",
                (bare if bare != head else f"{head}they").strip() + asked.group("tail").rstrip())
    found = _follow_on(message)
    topic = _without_request(message[: found.start()] if found else message)
    detail = found.group(0).lstrip(" ,;?？，；-—–").removeprefix("and ").strip() if found else ""
    return topic if len(topic) >= 3 else message, detail


def _asked_of_topic(message: str) -> re.Match[str] | None:
    """``_ASKED_OF_TOPIC`` or its Chinese twin, unless the message asks for a summary (its request words
    decide the topic)."""
    return None if asks_summary(message) else _ASKED_OF_TOPIC.match(message) or _ASKED_OF_TOPIC_ZH.match(message)


def _follow_on(message: str) -> re.Match[str] | None:
    """``_FOLLOW_ON`` when a topic stands before it: in "high level, what are
    people doing with masked autoencoding in these papers" the question is the request."""
    found = _FOLLOW_ON.search(message)
    return found if found and len(_without_request(message[: found.start()])) >= 3 else None


def _without_request(message: str) -> str:
    """The message less the request's words around its topic."""
    words = _REQUEST.sub(" ", _DECLINED.sub(" ", message))
    words = _REQUEST.sub(" ", " ".join(words.split()))  # again: "what's the big picture on" leaves "what's on"
    return _TRAILING.sub("", _LEADING.sub("", words)).strip(" ,.;:")


def topic_scope(scope: Scope) -> Scope:
    """A topic's scope with the words left around the filter taken out: a
    year is read by the "papers" after it ("the 2026 papers on EEG"), so
    ``topic_of`` keeps that word, and once the year is the filter "papers
    on graphs" is the topic "graphs" (searched with "papers", a summary of
    the ICLR 2026 papers on graphs found none)."""
    if not (scope.parsed or scope.unmatched) or not scope.query.strip():
        return scope
    # the field's words are added to the topic, not read as request words
    searched, plain = scoped(topic_of(scope.plain or scope.query))
    return replace(scope, query=searched, plain=plain)


def asks_title(message: str) -> bool:
    """The message asks for a paper's title ("what's the title of the POCO paper?", "POCO 的标题")."""
    return bool(_TITLE.search(message))


def asks_summary(message: str) -> bool:
    """The message asks for a summary or overview ("give me a rundown of…"),
    not about a paper that is one ("in the big survey of vision models, how…")."""
    return bool(_SUMMARY.search(_NAMED_SURVEY.sub(" ", message)))


def route(message: str, named: Callable[[str], list[int]]) -> Route:
    """The path for ``message``. ``named`` lists the indexed papers a text
    names verbatim (method names, ids), best first."""
    if _SMALL_TALK.match(message):
        return Route("ask", "says hello or asks what the assistant does: answered with what it can do",
                     small_talk=True)
    if _COLLECTION.match(message):
        return Route("list", "asks about the collection itself: answered from the index", collection=True)
    papers = named(message)
    cues = _DECLINED.sub(" ", message)
    if compares(message) and not papers and _SEVERAL.search(message):
        return Route("summarize", "asks how the papers on a topic differ, naming none: a summary of the topic")
    if compares(message):
        aspects = asked_aspects(message, named)
        on = f" on {', '.join(aspects)}" if aspects else ""
        if len(papers) > 2:  # "A vs B vs C": the sides of one "vs" would drop a paper
            return Route("compare", f"names {len(papers)} papers and asks to compare them{on}", papers,
                         aspects=aspects)
        sides = _SIDES.search(message)
        pair = [named(sides.group("a")), named(sides.group("b"))] if sides else []
        if pair and all(pair) and pair[0][0] != pair[1][0]:  # in the order the message names them
            return Route("compare", f"asks to compare two named papers{on}", [pair[0][0], pair[1][0]],
                         aspects=aspects)
        if len(papers) >= 2:
            return Route("compare", f"names two or more papers and asks to compare them{on}", papers,
                         aspects=aspects)
    if (_METADATA.search(message) or (papers and (_VENUE_CHECK.search(message) or _WHICH_VENUE.search(message)))
            or ((papers or describes_paper(message)) and _VENUE_ASKED.search(message))):
        # each paper's record answers it
        return Route("list", "asks for a paper's venue, year or title" if len(papers) <= 1 else
                     f"asks for the venue, year or title of {len(papers)} named papers", papers, metadata=True)
    if len(papers) >= 2 and is_keyword_query(message):
        return Route("compare", f"names {len(papers)} papers and nothing else: compares them", papers)
    if len(papers) >= 2 and not _LIST.search(cues) and not asks_summary(cues):
        return Route("compare", f"asks one question about {len(papers)} named papers: answered paper by paper",
                     papers, each=True)
    if ((_LIST.search(cues) or (not papers and _LIST_CHAT.search(cues)))
            and not _SUMMARY_ASKED.search(_NAMED_SURVEY.sub(" ", cues))):
        return Route("list", "asks which papers match")
    if len(papers) == 1 and asks_summary(cues) and not _PLURAL.search(cues):
        return Route("ask", "asks for a summary of one named paper: a question about it", papers)
    if asks_summary(cues) or (not papers and _TOPIC_CHAT.search(cues)):
        return Route("summarize", "asks for a summary or overview of a topic")
    if not papers and _asked_of_topic(cues):
        return Route("list", "asks the same of each paper on a topic: each one's own sentence on it")
    if not papers and is_keyword_query(message.rstrip(" ?？")) and _PLURAL.search(message):  # "EEG papers?"
        return Route("summarize", "asks for the papers on a topic")
    if is_keyword_query(message):
        return Route("ask", "is a keyword query: answered with the paper it points to", papers, keywords=True)
    return Route("ask", "is a question about the papers", papers)
