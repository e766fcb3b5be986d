"""`kvlimit serve`: an OpenAI-compatible HTTP server on kvlimit's continuous engine, whose memory is
fixed however long each answer runs (`pip install 'kvlimit[serve]'`: FastAPI, uvicorn, prometheus_client).

    from kvlimit.serve import ServeSettings, create_app, running
    app = create_app(model, tokenizer, kvlimit.LimitConfig.create(256), rows=8,
                     settings=ServeSettings(model_name="my-model"))
    with running(app) as url:      # a thread of this process, a free loopback port
        ...                        # POST {url}/v1/chat/completions with any OpenAI client

The pieces: `app` (routes, the API key, the body limit), `completions` (a request to the engine and
back, whole or streamed), `schemas` (request bodies), `responses` (OpenAI's shapes), `text` (text as
tokens arrive, stop strings), `worker` (the engine in a thread), `metrics` (Prometheus), `server`
(uvicorn, the drain on SIGTERM). `kvlimit.commands.serve` is the command line.
"""

from .app import ServeSettings, create_app
from .server import running, serve

__all__ = ["ServeSettings", "create_app", "running", "serve"]
