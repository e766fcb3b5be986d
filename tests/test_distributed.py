"""`kvlimit.distributed` on a local Ray cluster (`ray.init(num_cpus=2)`), with a tiny model.

- every id of the corpus ends in the shards exactly once, and the manifest says so;
- a worker killed mid-run (`ray.kill`: the process dies) loses at most the work it held; its
  unfinished prompts are done elsewhere, and the result is still every id exactly once;
- a rerun skips every finished id; without the ray package, --ray says how to install it.
"""

from __future__ import annotations

import json
import pathlib

import pytest

ray = pytest.importorskip("ray", reason="the Ray extra: scripts/setup.sh --dev installs it (CI does)")

from kvlimit import cli  # noqa: E402
from kvlimit.commands.batch import BatchJob  # noqa: E402
from kvlimit.config import LimitConfig  # noqa: E402
from kvlimit.distributed import generate_corpus  # noqa: E402

from .helpers import TinyModel, build_tiny  # noqa: E402

WORDS = ["the quick brown fox", "hello world", "the lazy dog says", "over the end", "hello there fox"]


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyModel:
    return build_tiny(tmp_path_factory.mktemp("ray"))


def prompts_file(path: pathlib.Path, count: int) -> str:
    path.write_text("".join(f"{WORDS[i % len(WORDS)]} {i}\n" for i in range(count)), encoding="utf-8")
    return str(path)


def job() -> BatchJob:
    decoding = {"max_new_tokens": 8, "min_new_tokens": 8, "do_sample": False, "num_beams": 1}
    return BatchJob(LimitConfig.create(8), decoding, raw=True, batch_size=2)


def ids_in(out: pathlib.Path) -> list[str]:
    return [json.loads(line)["id"] for shard in sorted(out.glob("shard-*.jsonl"))
            for line in shard.read_text(encoding="utf-8").splitlines()]  # fmt: skip


def test_every_id_once_across_the_shards(cluster, tiny, tmp_path) -> None:
    prompts = prompts_file(tmp_path / "p.txt", 24)
    out = tmp_path / "corpus"
    manifest = generate_corpus(prompts, out, job(), model=str(tiny.folder), workers=2, unit=4, progress=False)
    assert sorted(ids_in(out), key=int) == [str(i) for i in range(1, 25)]
    assert manifest["complete"] == manifest["prompts"] == manifest["records"] == 24
    assert len(manifest["shards"]) == 2 and json.loads((out / "manifest.json").read_text())["complete"] == 24
    again = generate_corpus(prompts, out, job(), model=str(tiny.folder), workers=2, unit=4, progress=False)
    assert again["records"] == 24 and sorted(ids_in(out), key=int) == [str(i) for i in range(1, 25)]


def test_a_killed_worker_loses_at_most_its_work_in_flight(cluster, tiny, tmp_path) -> None:
    prompts = prompts_file(tmp_path / "p.txt", 40)
    out = tmp_path / "corpus"
    killed = []

    def kill_the_other_worker(ids: list[str]) -> None:
        if not killed:  # after the first unit: kill a worker, likely in the middle of its own unit
            name = "kvlimit-corpus-shard-001"
            ray.kill(ray.get_actor(name), no_restart=True)
            killed.append(name)

    manifest = generate_corpus(prompts, out, job(), model=str(tiny.folder), workers=2, unit=4, progress=False,
                               on_unit=kill_the_other_worker)  # fmt: skip
    assert killed and len(manifest["shards"]) == 3  # a new worker, with a new shard, took over
    assert sorted(ids_in(out), key=int) == [str(i) for i in range(1, 41)]
    assert manifest["complete"] == 40


def test_without_ray_the_option_says_how_to_install_it(tmp_path, capsys, monkeypatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_ray(name, *args, **kwargs):
        if name == "ray":
            raise ImportError("no ray")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ray)
    prompts = prompts_file(tmp_path / "p.txt", 2)
    assert cli.main(["generate", "--prompts", prompts, "--output", str(tmp_path / "o"), "--ray"]) == 2
    assert "pip install 'kvlimit[ray]'" in capsys.readouterr().err
