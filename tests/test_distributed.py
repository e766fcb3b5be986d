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
from kvlimit.jobs import PromptItem  # noqa: E402

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


def test_a_worker_killed_after_its_whole_unit_leaves_nothing_to_redo(tmp_path) -> None:
    """The race the test above can hit: the worker is killed after it wrote every prompt of its unit but
    before its answer came back. Its ids count as done, and no empty unit goes to a worker (a worker
    given no prompts fails). Ray is stood in for, so the order is fixed."""
    from kvlimit.distributed import _Pool

    class Died(Exception):
        pass

    class Ref:
        def __init__(self, ids: list[str], dies: bool) -> None:
            self.ids, self.dies = ids, dies

    class Actor:
        def __init__(self, name: str, dies: bool = False) -> None:
            self.name, self.dies, self.given = name, dies, []
            self.run = self  # `actor.run.remote(work)`

        def remote(self, work):
            assert work, "an empty unit was sent to a worker"
            self.given.append([item.id for item in work])
            return Ref([item.id for item in work], self.dies)

    class FakeRay:
        exceptions = type("exceptions", (), {"RayActorError": Died})

        @staticmethod
        def wait(refs, num_returns):
            return refs[:num_returns], refs[num_returns:]

        @staticmethod
        def get(ref):
            if ref.dies:
                raise Died
            return ref.ids

    items = [PromptItem(str(i), f"prompt {i}", i) for i in range(1, 9)]
    shards = [tmp_path / "shard-000.jsonl", tmp_path / "shard-001.jsonl"]
    shards[0].write_text("".join(json.dumps({"id": str(i), "text": "x"}) + "\n" for i in range(1, 5)))
    shards[1].touch()
    pool = _Pool.__new__(_Pool)
    pool.ray, pool.out, pool.shards = FakeRay(), tmp_path, shards
    pool.actors = [Actor("dies after writing", dies=True), Actor("lives")]
    pool.make = lambda shard: Actor(f"new for {shard.name}")
    finished: list[str] = []
    pool.run([items[:4], items[4:]], 1, finished.extend)
    assert sorted(finished, key=int) == [str(i) for i in range(1, 9)]
    assert pool.actors[0].given == [] and pool.shards[0].name == "shard-002.jsonl"


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
