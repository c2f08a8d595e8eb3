"""Turn abstracts with LaTeX and markdown residue into plain readable text.

Abstracts scraped from OpenReview carry ``\\textbf{..}``, ``$\\sim$``, TeX
quotes, markdown emphasis and links; BibTeX fields add accents (``{\\"o}``)
and case-protecting braces. The cleaned text is what we embed, match and
display; the original is kept beside it on the paper record.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

# \cmd{...} wrappers whose argument is the text to keep.
_WRAPPERS = (
    "textbf|textit|texttt|textsc|textrm|textsf|emph|underline|mathrm|mathbf|mathit|"
    "mathsf|mathtt|mathcal|mathbb|text|boldsymbol|bm|operatorname"
)
_WRAP_RE = re.compile(r"\\(?:" + _WRAPPERS + r")\s*\{([^{}]*)\}")
_COLOR_RE = re.compile(r"\\(?:textcolor|color)\s*\{[^{}]*\}\s*\{([^{}]*)\}")
_HREF_RE = re.compile(r"\\href\s*\{[^{}]*\}\s*\{([^{}]*)\}")
_URL_CMD_RE = re.compile(r"\\url\s*\{([^{}]*)\}")
_MD_LINK_RE = re.compile(r"\[([^\]]+)\]\((?:https?://|www\.)[^)\s]*\)")
_MD_EMPH_RE = re.compile(r"(?<![\w*])(\*\*|\*|__)(?=\S)(.+?)(?<=\S)\1(?![\w*])")

_SYMBOLS = {
    r"\sim": "~",
    r"\approx": "≈",
    r"\times": "×",
    r"\leq": "≤",
    r"\le": "≤",
    r"\geq": "≥",
    r"\ge": "≥",
    r"\pm": "±",
    r"\cdot": "·",
    r"\rightarrow": "→",
    r"\to": "→",
    r"\infty": "∞",
    r"\alpha": "α",
    r"\beta": "β",
    r"\gamma": "γ",
    r"\delta": "δ",
    r"\epsilon": "ε",
    r"\lambda": "λ",
    r"\mu": "μ",
    r"\sigma": "σ",
    r"\ell": "ℓ",
    r"\textasciitilde": "~",
    r"\textasciicircum": "^",
    r"\textbackslash": "\\",
}
#: Letters TeX writes as commands (G{\\o}del, Stra{\\ss}e, {\\L}ukasz).
_LETTERS = {r"\ss": "ß", r"\o": "ø", r"\O": "Ø", r"\ae": "æ", r"\AE": "Æ", r"\oe": "œ", r"\OE": "Œ",
            r"\aa": "å", r"\AA": "Å", r"\l": "ł", r"\L": "Ł", r"\i": "i", r"\j": "j"}
#: TeX accent commands and the Unicode combining mark each one stands for.
_ACCENTS = {'"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "=": "\u0304",
            ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328",
            "r": "\u030a"}
# {\"o}, \"{o}, \"o, \'{\i}, \c{c}, \v s: symbol accents take the next letter directly,
# letter accents (\c, \v, ...) only before a brace or a space, so \cite and \url stay commands.
_ACCENT_RE = re.compile(r"\{?\\(?:([\"'`^~=.])|([uvHckr])(?=[\s{]))\s*(?:\{\s*(\\?[A-Za-z])\s*\}|(\\?[A-Za-z]))\}?")
_ABBREVIATIONS = {r"\eg": "e.g.", r"\ie": "i.e.", r"\etal": "et al.", r"\etc": "etc."}
_ESCAPES = {r"\,": " ", r"\%": "%", r"\&": "&", r"\_": "_", r"\#": "#", r"\$": "$"}
_SYMBOL_RE = re.compile(
    r"\\(?:" + "|".join(sorted((re.escape(k[1:]) for k in {**_SYMBOLS, **_ABBREVIATIONS, **_LETTERS}), key=len,
                                reverse=True)) + r")(?![A-Za-z])"
)
_LEFTOVER_CMD_RE = re.compile(r"\\[A-Za-z]+\*?\s*")
_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u00ad": "", "\u200b": ""})


@lru_cache(maxsize=4096)
def clean_text(raw: str) -> str:
    """Plain text for embedding, matching and display. Cached: loading checks,
    keys and stores each abstract, so it is cleaned three times in a row.

    >>> clean_text(r"we introduce the $\\textbf{Big Ma}$ca$\\textbf{Q}$ue dataset")
    'we introduce the Big MacaQue dataset'
    """
    text = unicodedata.normalize("NFC", raw).translate(_DASHES)
    text = _ACCENT_RE.sub(_accented, text)
    for key, value in _ESCAPES.items():
        text = text.replace(key, value)
    # Unwrap innermost-first until nothing changes (handles nesting).
    previous = None
    while previous != text:
        previous = text
        text = _COLOR_RE.sub(r"\1", text)
        text = _HREF_RE.sub(r"\1", text)
        text = _URL_CMD_RE.sub(r"\1", text)
        text = _WRAP_RE.sub(r"\1", text)
    lookup = {**_SYMBOLS, **_ABBREVIATIONS, **_LETTERS}
    text = _SYMBOL_RE.sub(lambda m: lookup[m.group(0)], text)
    text = _LEFTOVER_CMD_RE.sub("", text)
    text = re.sub(r"[${}]", "", text)
    text = text.replace("``", "\u201c").replace("''", "\u201d")
    text = text.replace("---", "\u2014").replace("--", "\u2013")
    text = _MD_LINK_RE.sub(r"\1", text)
    text = _MD_EMPH_RE.sub(r"\2", text)
    return unicodedata.normalize("NFC", re.sub(r"\s+", " ", text).strip())


def _accented(match: re.Match[str]) -> str:
    """One TeX accent as the accented letter: {\\"o} -> ö, \\c{c} -> ç."""
    letter = match.group(3) or match.group(4)
    letter = _LETTERS.get(letter, letter) if letter.startswith("\\") else letter
    return unicodedata.normalize("NFC", letter + _ACCENTS[match.group(1) or match.group(2)])


def content_key(abstract: str) -> str:
    """Identity of an abstract's content: the same text from two sources maps
    to the same key, whatever its LaTeX, spacing, case or punctuation."""
    folded = unicodedata.normalize("NFKC", clean_text(abstract)).casefold()
    letters = "".join(filter(str.isalnum, folded))
    return hashlib.sha256(letters.encode("utf-8")).hexdigest()[:16]
