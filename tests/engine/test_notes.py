"""NOTES.txt: the chart's own, or with --render-subchart-notes every chart's (helm's joining rule)."""
from helm_core.engine import renderer


def _files() -> dict[str, str]:
    return {"top/templates/NOTES.txt": "top notes", "top/templates/cm.yaml": "a: 1",
            "top/charts/b/templates/NOTES.txt": "b notes", "top/charts/a/templates/NOTES.txt": "",
            "top/charts/c/templates/NOTES.txt": "c notes"}


def test_the_chart_own_notes_and_every_notes_file_taken_out():
    files = _files()
    assert renderer.take_notes(files, "top") == "top notes"
    assert files == {"top/templates/cm.yaml": "a: 1"}


def test_subchart_notes_follow_the_chart_own_each_after_a_newline_once_there_is_text():
    files = _files()
    # helm writes the newline before a file whenever its buffer holds text (a's empty notes too)
    assert renderer.take_notes(files, "top", subcharts=True) == "top notes\n\nb notes\nc notes"
    assert files == {"top/templates/cm.yaml": "a: 1"}
    assert renderer.take_notes({"top/charts/a/templates/NOTES.txt": "a", "top/templates/NOTES.txt": ""},
                               "top", subcharts=True) == "a"
