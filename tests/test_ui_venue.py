"""The UI's venue box offers only the indexed venues and refuses any other
value (Gradio checks a dropdown's value before the handler runs), so an
unknown venue never reaches the library from the UI; the CLI checks it with
``PaperRetriever.check_filters``."""

from __future__ import annotations

import gradio as gr
import pytest

from assistant.answer import Assistant
from ui.app import ALL_VENUES, build_app


def test_the_venue_box_refuses_a_venue_not_indexed(assistant: Assistant) -> None:
    demo = build_app(assistant)
    venue = next(block for block in demo.blocks.values() if getattr(block, "elem_id", None) == "venue")
    assert [value for _, value in venue.choices] == [ALL_VENUES, "ICLR 2026", "NeurIPS 2025"]
    assert venue.preprocess("ICLR 2026") == "ICLR 2026"
    with pytest.raises(gr.Error, match="not in the list of choices"):
        venue.preprocess("CVPR 2030")
