"""Long music from a small GPT-2 with a bounded cache: Bach chorales, MidiTok, kvlimit.

The request that started kvlimit came from symbolic music: MIDI tokenized with MidiTok, GPT-2-style
models with learned positions, pieces far longer than the model's position table. This example does
all of it on a CPU in a few minutes:

1. the Bach chorales that music21's corpus ships (public domain), written to MIDI once;
2. MidiTok's REMI tokenizer (bars, positions, pitches, velocities, durations; symusic reads the MIDI);
3. a small GPT-2 (`n_positions` 256) trained on random 256-token windows, with a progress bar, saved
   as a checkpoint folder (`save_pretrained`) beside its tokenizer;
4. a piece ten times longer than the position table, generated with `kvlimit.generate` and
   `cache_limit`, for `positions="reencode"` and `positions="clamp"` side by side (sampling), while
   stock `generate` cannot go past the table at all;
5. each piece as a `.mid` file and a piano-roll PNG, and a table (and plot) of what the music does
   along its length: notes per bar and pitch range per segment, so that a collapse into silence or
   one repeated figure would show.

    python examples/music/music.py                       # everything, into ./music-output
    python examples/music/music.py --chorales 40 --train-minutes 1 --out /tmp/m   # quicker

It prints where the files are and a summary (tokens, tokens/s, cache bytes against the unbounded
cache). `examples/music/README.md` has the one command that sets up a fresh clone and runs it.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import random
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

import torch
from tqdm import tqdm
from transformers import GPT2Config, GPT2LMHeadModel

import kvlimit

TABLE = 256  # the model's position table: n_positions


@dataclass
class PieceReport:
    """One generated piece and what it does along its length."""

    positions: str
    tokens: int
    seconds: float
    tokens_per_s: float
    cache_bytes: int
    unbounded_cache_bytes: int
    reencodes: int
    notes: int
    midi: str
    piano_roll: str
    segments: list[dict[str, Any]]


# --- data -----------------------------------------------------------------------------------------


def chorale_midis(count: int, folder: pathlib.Path) -> list[pathlib.Path]:
    """The first `count` Bach chorales of music21's corpus as MIDI files in `folder` (written once)."""
    from music21 import corpus

    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for path in tqdm(sorted(corpus.getComposer("bach"))[:count], desc="chorales to MIDI", unit="piece"):
        midi = folder / (pathlib.Path(path).stem + ".mid")
        if not midi.exists():
            corpus.parse(path).write("midi", fp=str(midi))
        out.append(midi)
    return out


def make_tokenizer() -> Any:
    """MidiTok REMI: one token stream per piece (every part on one piano-roll track)."""
    from miditok import REMI, TokenizerConfig

    return REMI(TokenizerConfig(num_velocities=8, use_chords=False, use_programs=False))


def tokenize(tokenizer: Any, midis: list[pathlib.Path]) -> list[list[int]]:
    """Each MIDI file as one REMI id sequence (its parts merged into one track)."""
    import symusic

    pieces = []
    for midi in midis:
        score = symusic.Score(str(midi))
        merged = symusic.Score(score.ticks_per_quarter)
        track = symusic.Track()
        for part in score.tracks:
            track.notes.extend(part.notes)
        track.notes.sort(key=lambda n: (n.time, n.pitch))
        merged.tracks.append(track)
        merged.tempos.extend(score.tempos)
        merged.time_signatures.extend(score.time_signatures)
        encoded = tokenizer.encode(merged)
        sequence = encoded[0] if isinstance(encoded, list) else encoded
        pieces.append(list(sequence.ids))
    return pieces


# --- the model --------------------------------------------------------------------------------------


def small_gpt2(vocab: int, *, layers: int = 4, width: int = 192, heads: int = 4) -> GPT2LMHeadModel:
    config = GPT2Config(vocab_size=vocab, n_positions=TABLE, n_embd=width, n_layer=layers, n_head=heads,
                        bos_token_id=1, eos_token_id=2, pad_token_id=0, resid_pdrop=0.0, embd_pdrop=0.0,
                        attn_pdrop=0.0)  # fmt: skip
    config._attn_implementation = "sdpa"
    torch.manual_seed(0)
    return GPT2LMHeadModel(config)


def train(model: GPT2LMHeadModel, pieces: list[list[int]], *, minutes: float, steps: int | None,
          batch: int = 16, seed: int = 0) -> dict[str, Any]:  # fmt: skip
    """Next-token training on random `TABLE`-token windows for `minutes` (or `steps`), a progress bar."""
    rng = random.Random(seed)
    usable = [p for p in pieces if len(p) > TABLE + 1]
    if not usable:
        raise ValueError(f"no piece is longer than {TABLE + 1} tokens")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    model.train()
    deadline = time.perf_counter() + 60 * minutes
    losses: list[float] = []
    bar = tqdm(total=steps, desc="training", unit="step")
    step = 0
    while (steps is None and time.perf_counter() < deadline) or (steps is not None and step < steps):
        windows = []
        for _ in range(batch):
            piece = rng.choice(usable)
            start = rng.randrange(0, len(piece) - TABLE)
            windows.append(piece[start : start + TABLE])
        ids = torch.tensor(windows)
        loss = model(input_ids=ids, labels=ids).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        step += 1
        bar.update(1)
        bar.set_postfix(loss=f"{sum(losses[-20:]) / len(losses[-20:]):.3f}")
    bar.close()
    model.eval()
    return {"steps": step, "first_loss": losses[0], "last_loss": sum(losses[-20:]) / len(losses[-20:])}


# --- long generation --------------------------------------------------------------------------------


def generate_long(model: GPT2LMHeadModel, prompt: list[int], *, tokens: int, cache_limit: int,
                  positions: str, seed: int) -> tuple[list[int], float, Any]:  # fmt: skip
    """`tokens` new tokens through a bounded cache (sampling); returns them, the seconds and the cache."""
    torch.manual_seed(seed)
    ids = torch.tensor([prompt])
    # built here, so that its statistics can be read afterwards (the cache carries its settings)
    cache = kvlimit.build_cache(model, kvlimit.LimitConfig.create(cache_limit, positions=positions),
                                max_length=len(prompt) + tokens)  # fmt: skip
    start = time.perf_counter()
    with torch.no_grad():
        out = kvlimit.generate(model, input_ids=ids, attention_mask=torch.ones_like(ids), cache=cache,
                               max_new_tokens=tokens, min_new_tokens=tokens, do_sample=True, top_k=30,
                               temperature=1.0)  # fmt: skip
    return out[0, len(prompt) :].tolist(), time.perf_counter() - start, cache


def stock_stops_at_the_table(model: GPT2LMHeadModel, prompt: list[int]) -> str:
    """What stock generate says when asked to go past its position table."""
    ids = torch.tensor([prompt])
    try:
        with torch.no_grad():
            model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=TABLE,
                           min_new_tokens=TABLE, do_sample=True)  # fmt: skip
    except (IndexError, RuntimeError) as exc:
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:100]}"
    return "no error (unexpected)"


# --- what the music does -------------------------------------------------------------------------------


def notes_of(tokenizer: Any, ids: list[int]) -> Any:
    """The symusic score of an id sequence."""
    from miditok import TokSequence

    return tokenizer.decode([TokSequence(ids=ids)])


def segment_stats(score: Any, segments: int) -> list[dict[str, Any]]:
    """Per equal segment of the piece's duration: notes, notes per bar (4 beats) and pitch range."""
    notes = [n for track in score.tracks for n in track.notes]
    if not notes:
        return [{"segment": i, "notes": 0, "notes_per_bar": 0.0, "pitch_low": None, "pitch_high": None}
                for i in range(segments)]  # fmt: skip
    end = max(n.time + n.duration for n in notes)
    bar = 4 * score.ticks_per_quarter
    size = max(1, math.ceil(end / segments))
    out = []
    for i in range(segments):
        inside = [n for n in notes if i * size <= n.time < (i + 1) * size]
        pitches = [n.pitch for n in inside]
        out.append({
            "segment": i,
            "notes": len(inside),
            "notes_per_bar": round(len(inside) / max(1e-9, size / bar), 2),
            "pitch_low": min(pitches) if pitches else None,
            "pitch_high": max(pitches) if pitches else None,
        })  # fmt: skip
    return out


def piano_roll(score: Any, path: pathlib.Path, title: str) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    notes = [n for track in score.tracks for n in track.notes]
    figure = Figure(figsize=(14, 3.6), dpi=100)
    FigureCanvasAgg(figure)
    ax = figure.subplots()
    quarter = score.ticks_per_quarter
    for n in notes:
        ax.plot(
            [n.time / quarter, (n.time + n.duration) / quarter],
            [n.pitch, n.pitch],
            color="#1f77b4",
            linewidth=2,
        )
    ax.set_xlabel("quarter notes")
    ax.set_ylabel("MIDI pitch")
    ax.set_title(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(path, format="png")


def segments_plot(reports: list[PieceReport], path: pathlib.Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(9, 3.6), dpi=100)
    FigureCanvasAgg(figure)
    density, pitch = figure.subplots(1, 2)
    for report in reports:
        xs = [s["segment"] for s in report.segments]
        density.plot(xs, [s["notes_per_bar"] for s in report.segments], "o-", label=report.positions)
        lows = [s["pitch_low"] if s["pitch_low"] is not None else float("nan") for s in report.segments]
        highs = [s["pitch_high"] if s["pitch_high"] is not None else float("nan") for s in report.segments]
        pitch.fill_between(xs, lows, highs, alpha=0.3, label=report.positions)
    density.set_title("notes per bar, by tenth of the piece", fontsize=9)
    pitch.set_title("pitch range, by tenth of the piece", fontsize=9)
    density.legend(fontsize=8)
    pitch.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, format="png")


# --- the whole pipeline -----------------------------------------------------------------------------------


def run(out: pathlib.Path, *, chorales: int, train_minutes: float, train_steps: int | None, length: int,
        cache_limit: int, seed: int = 0, layers: int = 4, width: int = 192) -> dict[str, Any]:  # fmt: skip
    """Every step of the module docstring into `out`; returns the summary (also written as summary.json)."""
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = make_tokenizer()
    pieces = tokenize(tokenizer, chorale_midis(chorales, out / "chorales"))
    model = small_gpt2(len(tokenizer.vocab), layers=layers, width=width)
    training = train(model, pieces, minutes=train_minutes, steps=train_steps, seed=seed)
    checkpoint = out / "checkpoint"
    model.save_pretrained(checkpoint)
    tokenizer.save(checkpoint / "tokenizer.json")
    prompt = pieces[0][:64]
    refusal = stock_stops_at_the_table(model, prompt)
    reports = []
    for positions in ("reencode", "clamp"):
        ids, seconds, cache = generate_long(model, prompt, tokens=length, cache_limit=cache_limit,
                                            positions=positions, seed=seed)  # fmt: skip
        score = notes_of(tokenizer, prompt + ids)
        midi = out / f"piece-{positions}.mid"
        score.dump_midi(str(midi))
        roll = out / f"piece-{positions}.png"
        piano_roll(
            score,
            roll,
            f"{length} tokens ({length // TABLE}x the table), cache_limit {cache_limit}, positions={positions}",
        )
        notes = sum(len(t.notes) for t in score.tracks)
        reports.append(PieceReport(
            positions=positions, tokens=len(ids), seconds=round(seconds, 1), tokens_per_s=round(len(ids) / seconds, 1),
            cache_bytes=cache.nbytes(), unbounded_cache_bytes=(len(prompt) + len(ids)) * kvlimit.kv_bytes_per_token(model),
            reencodes=cache.stats["reencodes"], notes=notes, midi=str(midi), piano_roll=str(roll),
            segments=segment_stats(score, 10),
        ))  # fmt: skip
    segments_plot(reports, out / "segments.png")
    summary = {"chorales": len(pieces), "tokens_in_corpus": sum(map(len, pieces)), "vocab": len(tokenizer.vocab),
               "parameters": sum(p.numel() for p in model.parameters()), "training": training,
               "checkpoint": str(checkpoint), "stock_generate_past_the_table": refusal,
               "pieces": [asdict(r) for r in reports], "segments_plot": str(out / "segments.png")}  # fmt: skip
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", default="music-output", help="where everything goes (default: ./music-output)"
    )
    parser.add_argument(
        "--chorales", type=int, default=120, help="chorales to train on (default: 120 of 433)"
    )
    parser.add_argument("--train-minutes", type=float, default=4.0, help="training time (default: 4 minutes)")
    parser.add_argument("--train-steps", type=int, default=None, help="train this many steps instead")
    parser.add_argument("--length", type=int, default=10 * TABLE, help=f"new tokens (default: {10 * TABLE})")
    parser.add_argument("--cache-limit", type=int, default=192, help="kvlimit's limit (default: 192)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(max(1, min(2, torch.get_num_threads())))
    summary = run(pathlib.Path(args.out), chorales=args.chorales, train_minutes=args.train_minutes,
                  train_steps=args.train_steps, length=args.length, cache_limit=args.cache_limit, seed=args.seed)  # fmt: skip
    print(f"trained on {summary['chorales']} chorales ({summary['tokens_in_corpus']} tokens), "
          f"{summary['parameters'] / 1e6:.1f}M parameters, {summary['training']['steps']} steps: loss "
          f"{summary['training']['first_loss']:.2f} -> {summary['training']['last_loss']:.2f}")  # fmt: skip
    print(f"stock generate past its {TABLE}-position table: {summary['stock_generate_past_the_table']}")
    for piece in summary["pieces"]:
        print(f"positions={piece['positions']}: {piece['tokens']} tokens ({piece['tokens'] // TABLE}x the table) in "
              f"{piece['seconds']} s ({piece['tokens_per_s']} tokens/s), {piece['notes']} notes; cache "
              f"{piece['cache_bytes']} bytes, unbounded {piece['unbounded_cache_bytes']} bytes; "
              f"{piece['reencodes']} re-encodes")  # fmt: skip
        print("  notes per bar by tenth: " + " ".join(str(s["notes_per_bar"]) for s in piece["segments"]))
        print(
            "  pitch range by tenth:   "
            + " ".join(f"{s['pitch_low']}-{s['pitch_high']}" for s in piece["segments"])
        )
        print(f"  {piece['midi']}\n  {piece['piano_roll']}")
    print(
        f"segments plot: {summary['segments_plot']}; checkpoint: {summary['checkpoint']}; summary: "
        f"{pathlib.Path(args.out) / 'summary.json'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
