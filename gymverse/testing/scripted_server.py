"""A local OpenAI-compatible server that replays scripted answers, for tests and CPU demos.

A script is a JSON file (or dict) of rules, tried in order against each request's text (the
messages of a chat request, the prompt of a completions request)::

    {"model": "scripted",
     "rules": [
       {"name": "design", "when": ["Stage 1", "lantern"], "answers": ["{...json...}"]},
       {"name": "code", "when": ["Stage 2"], "answers": [{"file": "broken.py"}, {"file": "fixed.py", "say": "Fixed."}]}
     ]}

The first rule whose ``when`` strings all occur in the request answers it with its next answer;
once its answers run out it repeats the last one. ``Script.log`` lists every answer served as
``rule#n`` (the rule's n-th request, from 0). An answer is a string, or ``{"file": PATH, "say":
TEXT, "replace": [[OLD, NEW], ...]}``: TEXT followed by the file (relative to the script), each OLD
in it replaced by NEW (one variant of a file per answer, e.g. a broken game), in a fenced block
named after the file's extension. A request no rule matches gets HTTP 404. ``usage`` counts
whitespace-separated words.

A failing server is scripted too: ``{"status": 500}`` answers with that HTTP error, ``{"body": "garbage"}``
with a body that is not JSON, ``{"no_choices": true}`` with an answer whose ``choices`` is empty, and
``"delay_s": 3`` (beside any of these, or beside ``"text"``) answers that much later.

Run it: ``python -m gymverse.testing.scripted_server --script FILE --port 8000``; then
``openai:http://127.0.0.1:8000/v1#scripted`` names it as a model.
"""

import argparse
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

FENCES = {".py": "python", ".json": "json", ".md": "markdown"}


@dataclass
class Answer:
    text: str = ""
    status: int = 200  # an HTTP error status instead of an answer
    body: str | None = None  # a raw body instead of the API's JSON
    no_choices: bool = False  # an answer whose "choices" is empty
    delay_s: float = 0.0  # seconds to wait before answering


@dataclass
class Rule:
    name: str
    when: list[str]
    answers: list[Answer]
    served: int = 0


@dataclass
class Script:
    rules: list[Rule]
    model: str = "scripted"
    log: list[str] = field(default_factory=list)  # "rule#n" of every answer served, in order

    @classmethod
    def load(cls, source: str | Path | dict) -> "Script":
        """A script from a JSON file, or from a dict whose ``file`` answers are relative to the cwd."""
        base = Path(".")
        script = source if isinstance(source, dict) else json.loads(Path(source).read_text())
        if not isinstance(source, dict):
            base = Path(source).parent
        rules = [
            Rule(r.get("name", f"rule{i}"), list(r.get("when", [])), [_answer(a, base) for a in r["answers"]])
            for i, r in enumerate(script["rules"])
        ]
        return cls(rules, script.get("model", "scripted"))

    def match(self, request_text: str) -> Rule | None:
        return next((rule for rule in self.rules if all(part in request_text for part in rule.when)), None)

    def take(self, rule: Rule) -> Answer:
        """The rule's next answer (its last once they run out), logged."""
        self.log.append(f"{rule.name}#{rule.served}")
        rule.served += 1
        return rule.answers[min(rule.served, len(rule.answers)) - 1]


def _answer(answer: str | dict, base: Path) -> Answer:
    if isinstance(answer, str):
        return Answer(answer)
    text = _file_text(answer, base) if "file" in answer else answer.get("text", "")
    return Answer(
        text, answer.get("status", 200), answer.get("body"), answer.get("no_choices", False), answer.get("delay_s", 0.0)
    )


def _file_text(answer: dict, base: Path) -> str:
    path = base / answer["file"]
    text = path.read_text().rstrip()
    for old, new in answer.get("replace", []):
        if old not in text:
            raise ValueError(f"script answer from {path}: {old!r} does not occur in the file")
        text = text.replace(old, new)
    fence = FENCES.get(path.suffix, "")
    return f"{answer.get('say', '')}\n\n```{fence}\n{text}\n```\n".lstrip()


def _words(text: str) -> int:
    return len(text.split())


class _Handler(BaseHTTPRequestHandler):
    server: "ScriptedServer"

    def log_message(self, *_: Any) -> None:  # quiet: tests read the script's log instead
        pass

    def _send(self, status: int, body: dict) -> None:
        self._send_raw(status, json.dumps(body).encode())

    def _send_raw(self, status: int, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path.rstrip("/").endswith("/models"):
            model = self.server.script.model
            self._send(200, {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "scripted"}]})
        else:
            self._send(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:  # noqa: N802
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        chat = self.path.rstrip("/").endswith("/chat/completions")
        if not chat and not self.path.rstrip("/").endswith("/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        if chat:
            text = "\n".join(str(m.get("content", "")) for m in request.get("messages", []))
        else:
            text = str(request.get("prompt", ""))
        script = self.server.script
        with self.server.lock:
            self.server.asked.append(text)
            rule = script.match(text)
        if rule is None:
            self._send(404, {"error": {"message": "no scripted rule matches this request"}})
            return
        hook = self.server.before_answer
        if hook is not None and hook(rule.name, rule.served) is False:
            self.close_connection = True  # dropped unanswered: nothing logged, the rule not advanced
            return
        with self.server.lock:
            answer = script.take(rule)
        time.sleep(answer.delay_s)
        if answer.status != 200:
            self._send(answer.status, {"error": {"message": f"scripted HTTP {answer.status}"}})
            return
        if answer.body is not None:
            self._send_raw(200, answer.body.encode())
            return
        usage = {"prompt_tokens": _words(text), "completion_tokens": _words(answer.text)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        choice: dict[str, Any] = {"index": 0, "finish_reason": "stop", "logprobs": None}
        if chat:
            choice["message"] = {"role": "assistant", "content": answer.text}
        else:
            choice["text"] = answer.text
        self._send(
            200,
            {
                "id": f"scripted-{len(self.server.script.log)}",
                "object": "chat.completion" if chat else "text_completion",
                "created": int(time.time()),
                "model": request.get("model", self.server.script.model),
                "choices": [] if answer.no_choices else [choice],
                "usage": usage,
            },
        )


class ScriptedServer(ThreadingHTTPServer):
    """The server on 127.0.0.1 (``port=0``: any free port); ``url`` is its OpenAI base URL.

    Use it as a context manager (serves in a background thread) or call ``serve_forever``. ``asked`` keeps
    the text of every request, in order.
    ``before_answer(rule_name, n)``, if given, runs before a rule's n-th answer, outside the lock
    (a test may block there); returning False drops the request unanswered.
    """

    daemon_threads = True

    def __init__(
        self, script: Script, port: int = 0, before_answer: Callable[[str, int], bool | None] | None = None
    ) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.script = script
        self.before_answer = before_answer
        self.lock = threading.Lock()
        self.asked: list[str] = []
        self._thread: threading.Thread | None = None

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (timed out) before its answer is not an error of the server's."""
        import sys

        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def __enter__(self) -> "ScriptedServer":
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self.shutdown()
        self.server_close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve scripted answers on an OpenAI-compatible API.")
    parser.add_argument("--script", required=True, help="the JSON script (see this module's docstring)")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    server = ScriptedServer(Script.load(args.script), args.port)
    print(f"serving {args.script} at {server.url} (model {server.script.model!r}); Ctrl-C stops", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
