"""`stackaudit bench`: an honest baseline of an OpenAI-compatible inference server.

Modules, from the wire up:

- `sse`       byte-level SSE parsing (the hot path: counts content chunks without decoding JSON)
- `client`    one streamed request on aiohttp, recorded into a `RequestRecord`; spare connections
- `prompts`   prompts sized in the server's own tokens, each with a unique prefix
- `workload`  dataset files, a shared prefix, conversations (what a prefix cache can reuse)
- `loadgen`   closed loop (fixed concurrency) and open loop (Poisson rate); intended send times
- `metrics`   per-level statistics with their formulas; repeats, confidence intervals, validity
- `server`    server fingerprint, Prometheus counters, tokenize endpoints; host fingerprint
- `selfcheck` the client judged from itself per level: CPU share, run-queue wait, queueing
- `runner`    the whole run: preflight, warm-up, shuffled repeats, fingerprint before/after
- `history`   the SQLite store; `compare` the test between two stored runs
- `slo`       --goodput objectives and --percentiles
- `render`    text, markdown and JSON; `plot` the optional PNG chart; `export` --requests-jsonl
              and vllm-json; `progress` the bar inside each level
"""

from stackaudit.render.formats import SCHEMAS

BENCH_SCHEMA = SCHEMAS["bench"]
