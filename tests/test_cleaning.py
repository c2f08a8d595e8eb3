"""LaTeX and markdown residue is cleaned; identity survives formatting."""

from __future__ import annotations

import pytest

from assistant.cleaning import clean_text, content_key


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        (r"the \textbf{bold} and \textit{italic} words", "the bold and italic words"),
        (r"the $\textbf{Big Ma}$ca$\textbf{Q}$ue dataset ($\texttt{BigMaQ}$)", "the Big MacaQue dataset (BigMaQ)"),
        (r"vision tasks (\eg object detection, \ie boxes)", "vision tasks (e.g. object detection, i.e. boxes)"),
        (r"at: \href{https://x.org/a}{\textcolor{blue}{https://x.org/a}}.", "at: https://x.org/a."),
        (r"LLMs may ``think'' in English", "LLMs may \u201cthink\u201d in English"),
        (r"from *de novo* task learning and **bold** text", "from de novo task learning and bold text"),
        (r"convergent learning---the degree", "convergent learning\u2014the degree"),
        (r"sparse input ($\sim2.5$% activity)", "sparse input (~2.5% activity)"),
        (r"by 4-10\% across", "by 4-10% across"),
        ("Code at [https://github.com/a/b](https://github.com/a/b)", "Code at https://github.com/a/b"),
        ("Dale\u2011like  channels\n and more", "Dale-like channels and more"),
    ],
)
def test_residue_is_cleaned(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


def test_content_key_ignores_formatting_but_not_words() -> None:
    a = r"We propose $\textbf{X}$, a model---that works \eg well."
    b = "we propose X, a model\u2014that works e.g. well"
    assert content_key(a) == content_key(b)
    assert content_key(a) != content_key("We propose Y, a model that works well.")


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        (r"Nystr{\"o}m and Schr\"{o}dinger, R$\'{e}$nyi", "Nyström and Schrödinger, Rényi"),
        (r"G{\"o}del, Stra{\ss}e, {\L}ukasz, \c{C}a\u{g}lar, Fran\c cois, \v{S}ircelj",
         "Gödel, Straße, Łukasz, Çağlar, François, Šircelj"),
        (r"{BERT}: Pre-training \& fine-tuning, see \url{https://x.org}", "BERT: Pre-training & fine-tuning, see https://x.org"),
        (r"\textbf{G{\"o}del} by $\sim$4\textasciitilde{}", "Gödel by ~4~"),
    ],
)
def test_bibtex_accents_and_braces_are_cleaned(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean
