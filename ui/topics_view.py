"""What the Topics tab shows, without Gradio: the 2-D map as a Plotly
figure, the area/topic table, and a topic's paper list.

WebGL points (``scattergl``) keep the map responsive at 6k papers; one
trace per area gives a legend to hide or isolate areas. Hover text is plain
text for Plotly (which renders a few tags itself), so names and labels are
escaped here like everything else the UI shows.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from assistant.papers import Paper
from assistant.topics import Topic, TopicMap
from ui.render import esc, first_line

TOPIC_HEADERS = ["area", "topic", "label", "papers", "keywords"]
#: A colour per area; repeated past the palette's length (areas then differ by legend).
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf", "#393b79", "#e7969c", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#31a354",
           "#756bb1", "#636363", "#e6550d", "#9ecae1", "#a1d99b", "#fdae6b", "#bcbddc"]


def map_figure(topic_map: TopicMap, papers: dict[str, Paper]) -> go.Figure:
    """Every paper a point, coloured by area; hover: its name and topic."""
    figure = go.Figure()
    for n, area in enumerate(topic_map.areas):
        xs, ys, hover = [], [], []
        for topic in area.topics:
            for pid in topic.papers:
                if pid in papers and pid in topic_map.points:
                    x, y = topic_map.points[pid]
                    xs.append(x)
                    ys.append(y)
                    hover.append(f"{esc(papers[pid].name)}<br>{esc(topic.topic_id)} {esc(topic.label)}")
        figure.add_trace(go.Scattergl(
            x=xs, y=ys, mode="markers", name=f"{area.area_id}. {area.label}"[:48], text=hover,
            hovertemplate="%{text}<extra></extra>",
            marker={"size": 5 if len(topic_map.points) > 1500 else 8, "opacity": 0.75,
                    "color": PALETTE[n % len(PALETTE)]},
        ))
    figure.update_layout(
        height=620, margin={"l": 10, "r": 10, "t": 10, "b": 10}, legend={"itemsizing": "constant", "font": {"size": 11}},
        xaxis={"visible": False}, yaxis={"visible": False, "scaleanchor": "x"}, hovermode="closest",
        plot_bgcolor="rgba(0,0,0,0)", paper_bgcolor="rgba(0,0,0,0)",
    )
    return figure


def topic_rows(topic_map: TopicMap) -> list[list[Any]]:
    """One row per topic: area, topic id, label, size, keywords."""
    return [[f"{area.area_id}. {area.label}", topic.topic_id, topic.label, topic.size, ", ".join(topic.keywords[:5])]
            for area in topic_map.areas for topic in area.topics]


def topic_papers(topic: Topic, papers: list[Paper], covered: int) -> str:
    """The topic's papers as a list (most typical first), saying how many the summary covers."""
    items = "".join(f'<li><strong class="name">{esc(p.name)}</strong> <span class="venue">{esc(p.venue)}</span>'
                     f'<br><span class="first">{esc(first_line(p.abstract))}</span></li>' for p in papers)
    note = (f"the summary covers its {covered} most representative papers" if covered < len(papers)
            else "the summary covers all of them")
    return (f'<section class="topic" id="topic-{esc(topic.topic_id)}"><h3>{esc(topic.topic_id)} {esc(topic.label)}'
            f'</h3><p class="keywords">{esc(", ".join(topic.keywords))}</p>'
            f'<p class="count">{len(papers)} papers; {note}.</p><ol class="papers">{items}</ol></section>')
