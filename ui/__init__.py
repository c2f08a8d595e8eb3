"""The Gradio chat UI: ``ui.app.launch`` serves it, ``ui.render`` draws it."""
