#!/usr/bin/env bash
# One GPU session's measurements, in priority order, each under its own time limit (the device tool
# gives a session 15 minutes in all; this script's default sections take about 12). Run from the repository root on the GPU machine, with `.whl`
# carried: the wheels of transformers 5.25.0 and its new dependencies (that machine has 5.17, below
# kvlimit's floor) and `.whl/smollm2`, the embedded model's tokenizer and config (its weights do not
# fit the transfer, so the model here has SmolLM2-135M's shape and random bfloat16 weights; the
# workload ignores end of sequence, so its work is that of the real model), and `.whl/corpus`, the
# cleaned corpus (that machine cannot download it). Writes into $OUT.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD/src:$PWD PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
mkdir -p /tmp/xdg/kvlimit/corpus && cp .whl/corpus/botchan.txt /tmp/xdg/kvlimit/corpus/ && export XDG_CACHE_HOME=/tmp/xdg
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/env.txt"
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)" | tee -a "$OUT/env.txt"
python3 - <<'EOF' || exit 1
import glob, shutil, torch
from transformers import AutoConfig, AutoModelForCausalLM
config = AutoConfig.from_pretrained(".whl/smollm2")
torch.manual_seed(0)
AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16).save_pretrained("/tmp/smollm2-random")
for name in glob.glob(".whl/smollm2/*"):
    if not name.endswith("config.json"):
        shutil.copy(name, "/tmp/smollm2-random/")
EOF
# 0. The continuous engine against one static batch (issue "The continuous engine keeps the hardware
#    busy"): 16 and 64 rows of SmolLM2's shape, every row running 128 tokens, greedy and sampling,
#    eager (two waves of prompts: the second admitted as rows free up, in free rows or through 16
#    prefill rows), then both sides compiled (the engine's captured decode step). About 4 minutes.
timeout 150 python3 benchmarks/engine_host.py --model /tmp/smollm2-random --device cuda --dtype bfloat16 \
    --rows 16,64 --cache-limit 128 --prefill-rows 0,16 --waves 2 --repeats 1 2>&1 | tee "$OUT/engine-host.log"
timeout 150 python3 benchmarks/engine_host.py --model /tmp/smollm2-random --device cuda --dtype bfloat16 \
    --rows 16,64 --cache-limit 128 --prefill-rows 0 --repeats 2 --compile 2>&1 | tee "$OUT/engine-host-compiled.log"
# 1. The compiled decode step (issue "Compile once"): kvlimit compiled (CUDA graphs) against kvlimit
#    eager, stock generate and transformers' StaticCache compiled at the same KV length, at batch 1, 16
#    and 64, limits 128 and 1024 (the cudagraphs backend: seconds to compile; the graph replays are what
#    a launch-bound step needs), then no host sync inside kvlimit's compiled steps. About 5 minutes.
timeout 360 python3 benchmarks/compile_step.py --model /tmp/smollm2-random --device cuda --dtype bfloat16 \
    --cache-limit 128,1024 --batch 1,16,64 --tokens 64 --rounds 3 --backend cudagraphs --sync-check \
    --json "$OUT/compile-step.json" 2>&1 | tee "$OUT/compile-step.log"
# 2. The recall tier's step compiled (CUDA graphs) against the sinks step compiled, limit 1024, a
#    4,096-token store, recall 256 and 512 (issue "The continuous engine": recall step <= 1.3x sinks).
timeout 200 python3 benchmarks/recall_compiled.py --model /tmp/smollm2-random --device cuda --limit 1024 \
    --store 4096 --rounds 20 --json "$OUT/recall-compiled.json" 2>&1 | tee "$OUT/recall-compiled.log"
# 3. The compiled step with inductor's kernels, at batch 16 and limit 1024 (minutes of compiling; INDUCTOR=1).
[ -n "${INDUCTOR:-}" ] && timeout 240 python3 benchmarks/compile_step.py --model /tmp/smollm2-random --device cuda \
    --dtype bfloat16 --cache-limit 1024 --batch 16 --tokens 64 --rounds 3 --backend inductor --kv-dtype int8 \
    --json "$OUT/compile-step-inductor.json" 2>&1 | tee "$OUT/compile-step-inductor.log"
# Earlier sessions' measurements, when asked for (CHECKS=1, WORKLOAD=1, RECALL_SPEED=1).
[ -n "${CHECKS:-}" ] && timeout 150 python3 benchmarks/gpu_checks.py --out "$OUT" 2>&1 | tee "$OUT/checks.log"
# generate_batch looked for flash-attention kernels on the Hub (offline there) in the first session;
# kvlimit throughput now gives it auto_switch_to_flash=False and an attention that needs nothing from the Hub
[ -n "${WORKLOAD:-}" ] && timeout 240 python3 -m kvlimit throughput --workloads a --num-prompts 16 --max-new-tokens 256 \
    --memory 64MiB --cache-limit 128 --systems continuous,static,stock,generate_batch \
    --model /tmp/smollm2-random --device cuda --json "$OUT/workload-a.json" --plot "$OUT/workload-a.png" 2>&1 \
    | tee "$OUT/workload-a.log"
[ -n "${RECALL_SPEED:-}" ] && timeout 100 python3 benchmarks/recall_speed.py --model /tmp/smollm2-random --device cuda --limits 1024 \
    --fill 4096 --rounds 20 --growth 0 --json "$OUT/recall-speed.json" 2>&1 | tee "$OUT/recall-speed.log"
