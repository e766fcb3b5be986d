"""`kvlimit serve` over HTTP: a server on a free loopback port in this process, a tiny random Llama, driven
by the official `openai` client and by raw HTTP.

- whole and streamed, completion and chat: the text of `kvlimit.generate` on the prompt alone (the chat
  template applied), the streamed pieces adding up to it; `usage` in every final response;
- a seeded request gives the same text alone and among 16 concurrent others, the text of
  `kvlimit.generate` seeded with `sequence_seed(seed, "", 0)`; log-probabilities are the model's;
- a client that disconnects (streaming or not) frees its row at once (the metrics say so);
- every bad input gets its status, its field and a message saying what is allowed; 401 without the API
  key (not on /health); 429 with Retry-After beyond the queue bound.
The drain on SIGTERM runs the command line in a subprocess (`test_serve_drain.py`).
"""

from __future__ import annotations

import json
import re
import socket
import time
from concurrent.futures import ThreadPoolExecutor

import httpx2 as httpx
import openai
import pytest
import torch
import transformers

import kvlimit
from kvlimit.engine import sequence_seed
from kvlimit.frontend import decoding_arguments, encode_messages
from kvlimit.serve import ServeSettings, create_app, running

from .helpers import CHAT_TEMPLATE, build_tiny

ROWS = 4
MAX_PROMPT = 64


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    tiny = build_tiny(tmp_path_factory.mktemp("serve"))
    tiny.tokenizer.chat_template = CHAT_TEMPLATE
    return tiny


def make_app(tiny, **settings):
    options = {"model_name": "tiny", "max_prompt_tokens": MAX_PROMPT, "max_body_bytes": 8192, **settings}
    rows = options.pop("rows", ROWS)
    return create_app(tiny.model, tiny.tokenizer, kvlimit.LimitConfig.create(24), rows=rows,
                      settings=ServeSettings(**options), seed=0, prefill_chunk=6)  # fmt: skip


@pytest.fixture(scope="module")
def server(tiny):
    app = make_app(tiny)
    with running(app) as url:
        yield url, app


def engine_config(app):
    return app.state.service.worker.engine.config


def oracle(tiny, app, ids, *, seed=None, **options):
    """The text and finish reason of `kvlimit.generate` on `ids` alone, decoding as the server does."""
    decoding = decoding_arguments(**options).kwargs
    if seed is not None:
        transformers.set_seed(sequence_seed(seed, "", 0))
    prompt = torch.tensor([ids])
    out = kvlimit.generate(
        tiny.model, input_ids=prompt, cache_limit=engine_config(app), pad_token_id=2, **decoding
    )
    new = out[0, prompt.shape[1] :].tolist()
    text = tiny.tokenizer.decode(new, skip_special_tokens=True, clean_up_tokenization_spaces=False)
    return text, "stop" if new[-1] == 2 else "length"


def metric(url, name):
    text = httpx.get(f"{url}/metrics").text
    return float(re.search(rf"^{re.escape(name)} (\S+)$", text, re.M).group(1))


def wait_for(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


PROMPT = "the quick brown fox says hello"
GREEDY = {"max_new_tokens": 14, "do_sample": False}


def test_openai_client_completion_and_chat_whole_and_streamed(server, tiny):
    url, app = server
    client = openai.OpenAI(base_url=f"{url}/v1", api_key="unused")
    assert [m.id for m in client.models.list()] == ["tiny"]
    ids = tiny.tokenizer(PROMPT)["input_ids"]
    text, finish = oracle(tiny, app, ids, **GREEDY)
    whole = client.completions.create(model="tiny", prompt=PROMPT, max_tokens=14, temperature=0)
    assert (whole.choices[0].text, whole.choices[0].finish_reason) == (text, finish)
    assert (
        whole.usage.prompt_tokens == len(ids)
        and whole.usage.total_tokens == len(ids) + whole.usage.completion_tokens
    )
    chunks = list(
        client.completions.create(model="tiny", prompt=PROMPT, max_tokens=14, temperature=0, stream=True)
    )
    assert "".join(c.choices[0].text for c in chunks) == text
    assert (
        chunks[-1].choices[0].finish_reason == finish
        and chunks[-1].usage.completion_tokens == whole.usage.completion_tokens
    )

    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello world"}]
    chat_ids = encode_messages(tiny.tokenizer, messages)
    text, finish = oracle(tiny, app, chat_ids, **GREEDY)
    answer = client.chat.completions.create(model="tiny", messages=messages, max_tokens=14, temperature=0)
    assert (answer.choices[0].message.content, answer.choices[0].finish_reason) == (text, finish)
    assert answer.usage.prompt_tokens == len(chat_ids)
    stream = client.chat.completions.create(model="tiny", messages=messages, max_tokens=14, temperature=0,
                                            stream=True, stream_options={"include_usage": True})  # fmt: skip
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == text
    assert chunks[-1].choices == [] and chunks[-1].usage.prompt_tokens == len(chat_ids)


def test_raw_stream_is_whole_events_ending_in_done(server, tiny):
    url, _ = server
    body = {"prompt": PROMPT, "max_tokens": 8, "temperature": 0, "stream": True}
    with httpx.stream("POST", f"{url}/v1/completions", json=body, timeout=30) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        raw = response.read().decode()
    events = raw.split("\n\n")
    assert events[-2:] == ["data: [DONE]", ""]
    for event in events[:-2]:
        assert event.startswith("data: ")
        assert json.loads(event[6:])["object"] == "text_completion"


SAMPLING = {"temperature": 0.9, "top_p": 0.9, "max_tokens": 16}


def test_a_seeded_request_is_the_same_alone_and_among_16_others(server, tiny):
    url, app = server
    body = {"model": "tiny", "prompt": PROMPT, "seed": 1234, **SAMPLING}
    alone = httpx.post(f"{url}/v1/completions", json=body, timeout=60).json()["choices"][0]["text"]
    expected, _ = oracle(tiny, app, tiny.tokenizer(PROMPT)["input_ids"], seed=1234, max_new_tokens=16,
                         do_sample=True, temperature=0.9, top_p=0.9)  # fmt: skip
    assert alone == expected
    others = [{"prompt": f"hello there {'the end ' * k}", "seed": k, **SAMPLING} for k in range(16)]

    def post(item):
        return httpx.post(f"{url}/v1/completions", json=item, timeout=120).json()["choices"][0]["text"]

    with ThreadPoolExecutor(17) as pool:
        futures = [pool.submit(post, item) for item in others[:8]]
        mine = pool.submit(post, body)
        futures += [pool.submit(post, item) for item in others[8:]]
        assert mine.result() == alone
        assert all(isinstance(f.result(), str) for f in futures)


def test_logprobs_are_the_models(server, tiny):
    url, app = server
    body = {"prompt": PROMPT, "max_tokens": 6, "temperature": 0, "logprobs": 2}
    choice = httpx.post(f"{url}/v1/completions", json=body, timeout=30).json()["choices"][0]
    ids = torch.tensor([tiny.tokenizer(PROMPT)["input_ids"]])
    out = kvlimit.generate(tiny.model, input_ids=ids, cache_limit=engine_config(app), max_new_tokens=6, do_sample=False,
                           pad_token_id=2, output_logits=True, return_dict_in_generate=True)  # fmt: skip
    expected = [torch.log_softmax(step[0], -1) for step in out.logits]
    tokens = out.sequences[0, ids.shape[1] :].tolist()
    assert choice["logprobs"]["token_logprobs"] == pytest.approx(
        [float(e[t]) for e, t in zip(expected, tokens, strict=True)], abs=1e-5
    )
    assert [len(top) for top in choice["logprobs"]["top_logprobs"]] == [2] * len(tokens)


def _open_stream(url, body):
    """A raw HTTP request on a socket of its own (closing it is the client going away)."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)))
    data = json.dumps(body).encode()
    sock.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 + f"Content-Length: {len(data)}\r\n\r\n".encode() + data)  # fmt: skip
    return sock


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_a_client_that_disconnects_frees_its_row(server, stream):
    url, _ = server
    cancelled = metric(url, 'kvlimit_requests_total{outcome="cancelled"}')
    wait_for(lambda: metric(url, "kvlimit_rows_active") == 0)
    sock = _open_stream(url, {"prompt": PROMPT, "max_tokens": 10**6, "ignore_eos": True, "stream": stream})
    if stream:  # the headers, then the first tokens' events
        received = b""
        while b"data: " not in received:
            received += sock.recv(4096)
    wait_for(lambda: metric(url, "kvlimit_rows_active") == 1)
    sock.close()
    wait_for(lambda: metric(url, "kvlimit_rows_active") == 0, timeout=5)
    wait_for(lambda: metric(url, 'kvlimit_requests_total{outcome="cancelled"}') == cancelled + 1)
    assert metric(url, "kvlimit_generated_tokens_total") > 0


LONG = list(range(3, 3 + MAX_PROMPT + 1))
CHAT = "/v1/chat/completions"
TEXT = "/v1/completions"
HELLO = [{"role": "user", "content": "hello"}]
BAD = [  # path, body, status, param, what the message says
    (TEXT, {"prompt": "x", "temperature": 5}, 400, "temperature", "less than or equal to 2"),
    (TEXT, {"prompt": "x", "top_p": 0}, 400, "top_p", "greater than 0"),
    (TEXT, {"prompt": "x", "max_tokens": 0}, 400, "max_tokens", "greater than or equal to 1"),
    (TEXT, {"prompt": "x", "colour": "red"}, 400, "colour", "this endpoint takes"),
    (TEXT, {"prompt": ["a", "b"]}, 400, "prompt", "one prompt per request"),
    (TEXT, {}, 400, "prompt", "required"),
    (TEXT, {"prompt": LONG}, 400, "prompt", f"at most {MAX_PROMPT} (--max-prompt-tokens)"),
    (TEXT, {"prompt": [3, 10**6]}, 400, "prompt", "not in the vocabulary"),
    (TEXT, {"prompt": "x", "n": ROWS + 1, "temperature": 1}, 400, "n", f"the {ROWS} rows"),
    (TEXT, {"prompt": "x", "n": 2, "temperature": 0}, 400, "n", "needs sampling"),
    (TEXT, {"prompt": "x", "presence_penalty": 0.5}, 400, "presence_penalty", "not supported"),
    (TEXT, {"prompt": "x", "frequency_penalty": 0.5}, 400, "frequency_penalty", "not supported"),
    (TEXT, {"prompt": "x", "echo": True}, 400, "echo", "not supported"),
    (TEXT, {"prompt": "x", "logprobs": 30}, 400, "logprobs", "less than or equal to 20"),
    (TEXT, {"prompt": "x", "stop": ["a", "b", "c", "d", "e"]}, 400, "stop", "at most 4"),
    (TEXT, {"prompt": "x", "stop": "z" * 201}, 400, "stop", "1 to 200 characters"),
    (TEXT, {"prompt": "x", "ignore_eos": True}, 400, "ignore_eos", "needs max_tokens"),
    (TEXT, {"prompt": "x", "model": "gpt-4"}, 404, "model", "this server serves 'tiny'"),
    (TEXT, {"prompt": "x" * 9000}, 413, None, "larger than 8192 bytes"),
    (CHAT, {"messages": []}, 400, "messages", "at least 1 item"),
    (CHAT, {"messages": [{"role": "robot", "content": "x"}]}, 400, "messages[0].role", "'system', 'developer', 'user'"),
    (CHAT, {"messages": HELLO, "top_logprobs": 2}, 400, "top_logprobs", "needs logprobs"),
    (CHAT, {"messages": HELLO, "tools": []}, 400, "tools", "unknown field"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("path", "body", "status", "param", "says"), BAD, ids=[f"{b[3]}-{b[2]}" for b in BAD]
)
def test_bad_input_gets_its_status_and_a_message_naming_the_field(server, path, body, status, param, says):
    url, _ = server
    response = httpx.post(f"{url}{path}", json=body, timeout=30)
    assert response.status_code == status
    error = response.json()["error"]
    assert error["param"] == param and says in error["message"] and error["type"]


def test_malformed_json_and_unknown_routes(server):
    url, _ = server
    response = httpx.post(
        f"{url}{TEXT}", content=b'{"prompt": ', headers={"content-type": "application/json"}
    )
    assert response.status_code == 400 and "not valid JSON" in response.json()["error"]["message"]
    response = httpx.get(f"{url}/v1/engines")
    assert response.status_code == 404 and "no route GET /v1/engines" in response.json()["error"]["message"]
    assert httpx.get(f"{url}/docs").status_code == 404


def test_api_key_guards_every_route_but_health(tiny):
    with running(make_app(tiny, api_key="s3cret")) as url:
        assert httpx.get(f"{url}/health").status_code == 200
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret"}):
            response = httpx.get(f"{url}/v1/models", headers=headers)
            assert response.status_code == 401 and "API key" in response.json()["error"]["message"]
            assert httpx.get(f"{url}/metrics", headers=headers).status_code == 401
        with pytest.raises(openai.AuthenticationError):
            openai.OpenAI(base_url=f"{url}/v1", api_key="wrong").completions.create(model="tiny", prompt="x")
        good = openai.OpenAI(base_url=f"{url}/v1", api_key="s3cret")
        assert (
            good.completions.create(model="tiny", prompt="hello", max_tokens=2).usage.completion_tokens >= 1
        )


def test_beyond_the_queue_bound_is_429_with_retry_after(tiny):
    app = make_app(tiny, rows=1, max_queue=1)
    with running(app) as url:
        endless = {"prompt": PROMPT, "max_tokens": 10**6, "ignore_eos": True, "stream": True}
        first = _open_stream(url, endless)
        wait_for(lambda: metric(url, "kvlimit_rows_active") == 1)
        second = _open_stream(url, endless)
        wait_for(lambda: metric(url, "kvlimit_queue_length") == 1)
        response = httpx.post(f"{url}{TEXT}", json={"prompt": "x", "max_tokens": 2})
        assert response.status_code == 429 and int(response.headers["Retry-After"]) >= 1
        assert "--max-queue 1" in response.json()["error"]["message"]
        assert metric(url, 'kvlimit_requests_total{outcome="rejected"}') == 1
        first.close()
        wait_for(lambda: metric(url, "kvlimit_queue_length") == 0)  # the queued one took the freed row
        second.close()
        wait_for(lambda: metric(url, "kvlimit_rows_active") == 0)
        assert httpx.post(f"{url}{TEXT}", json={"prompt": "x", "max_tokens": 2}).status_code == 200


def test_stop_strings_end_the_text_before_them(server, tiny):
    url, _ = server
    ids = tiny.tokenizer(PROMPT)["input_ids"]
    text, _ = oracle(tiny, server[1], ids, max_new_tokens=20, do_sample=False)
    stop = next(c for c in text[3:] if c.isascii() and c.isprintable() and c != " ")
    body = {"prompt": PROMPT, "max_tokens": 20, "temperature": 0, "stop": stop}
    whole = httpx.post(f"{url}{TEXT}", json=body).json()["choices"][0]
    assert whole["finish_reason"] == "stop" and whole["text"] == text[: text.index(stop)]
    with httpx.stream("POST", f"{url}{TEXT}", json={**body, "stream": True}) as response:
        pieces = [json.loads(line[6:]) for line in response.iter_lines() if line.startswith("data: {")]
    assert "".join(p["choices"][0]["text"] for p in pieces) == whole["text"]


def test_without_a_prefill_row_prompts_are_prefilled_in_free_rows(tiny):
    """`prefill_rows=0`: a byte budget holds the rows alone (the limit 3 rows and one prefill row would
    get), and every answer, greedy and seeded, is its prompt's alone, with more requests than rows."""
    budget = kvlimit.LimitConfig.create(f"{4 * 24 * kvlimit.kv_bytes_per_token(tiny.model)}B")
    settings = ServeSettings(model_name="tiny", max_prompt_tokens=MAX_PROMPT, max_body_bytes=8192)
    app = create_app(tiny.model, tiny.tokenizer, budget, rows=4, settings=settings, seed=0, prefill_chunk=6,
                     prefill_rows=0)  # fmt: skip
    assert app.state.service.worker.engine.prefill_rows == 0
    assert engine_config(app).cache_limit_tokens == 24  # 4 rows of 24 tokens and nothing beside
    prompts = [f"hello there {'the end ' * k}" for k in range(7)]
    with running(app) as url, ThreadPoolExecutor(7) as pool:
        bodies = [{"model": "tiny", "prompt": p, "seed": k, **SAMPLING} for k, p in enumerate(prompts)]
        texts = list(
            pool.map(lambda b: httpx.post(f"{url}/v1/completions", json=b, timeout=120).json(), bodies)
        )
    for k, (prompt, answer) in enumerate(zip(prompts, texts, strict=True)):
        expected, _ = oracle(tiny, app, tiny.tokenizer(prompt)["input_ids"], seed=k, max_new_tokens=16,
                             do_sample=True, temperature=0.9, top_p=0.9)  # fmt: skip
        assert answer["choices"][0]["text"] == expected, k


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--batch-size", "2", "--memory", "1GiB"], "give --batch-size or --memory, not both"),
        (["--prefill-rows", "-1"], "--prefill-rows must be >= 0"),
        (["--max-queue", "-1"], "--max-queue must be >= 0"),
        (["--drain-seconds", "-5"], "--drain-seconds must be >= 0"),
        (["--memory", "lots"], "--memory"),
        (["--cache-limit", "0"], "--cache-limit must be a positive number"),
        (["--policy", "lru"], "--policy 'lru' is not a known policy"),
    ],
)
def test_the_command_line_refuses_bad_options_before_loading(argv, says, capsys):
    from kvlimit.cli import main

    assert main(["serve", "--model", "/nonexistent/never-loaded", *argv]) == 2
    assert says in capsys.readouterr().err
