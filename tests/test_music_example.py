"""The music example's pipeline (`examples/music/music.py`) on two chorales, a tiny GPT-2 and a few steps.

It must train (the loss falls), save a checkpoint, and generate past the model's position table with
both positions modes (which stock generate cannot), writing MIDI files that decode back to notes,
piano rolls and the per-segment statistics.
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys

import pytest

pytest.importorskip("music21", reason="the music extra: scripts/setup.sh --dev installs it (CI does)")
pytest.importorskip("miditok")

SCRIPT = pathlib.Path(__file__).parent.parent / "examples" / "music" / "music.py"


def load_example():
    spec = importlib.util.spec_from_file_location("music_example", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_two_chorales_train_and_play_past_the_table(tmp_path) -> None:
    music = load_example()
    length = 2 * music.TABLE + 40
    summary = music.run(tmp_path, chorales=2, train_minutes=0, train_steps=6, length=length, cache_limit=48,
                        layers=1, width=32)  # fmt: skip
    assert summary["chorales"] == 2 and summary["training"]["steps"] == 6
    assert summary["training"]["last_loss"] < summary["training"]["first_loss"]
    assert (tmp_path / "checkpoint" / "config.json").is_file()
    assert summary["stock_generate_past_the_table"].startswith("IndexError")
    import symusic

    for piece in summary["pieces"]:
        assert piece["tokens"] == length and piece["cache_bytes"] < piece["unbounded_cache_bytes"]
        assert len(piece["segments"]) == 10
        score = symusic.Score(piece["midi"])
        assert sum(len(t.notes) for t in score.tracks) == piece["notes"]
        assert pathlib.Path(piece["piano_roll"]).read_bytes()[:4] == b"\x89PNG"
    reencode, clamp = summary["pieces"]
    assert reencode["positions"] == "reencode" and reencode["reencodes"] >= 1 and clamp["reencodes"] == 0
    assert json.loads((tmp_path / "summary.json").read_text())["pieces"][0]["positions"] == "reencode"
