"""A webhook receiver for the black-box tests: it verifies every delivery with the
`standardwebhooks` library (the Standard Webhooks reference implementation for Python), as a
consumer would, and keeps what it accepted.

It listens on 127.0.0.1 at a free port, which it prints as its first line. The test drives it:

- `POST /control` `{"secret": "whsec_...", "fail_first": n}`: the secret to verify with, and
  how many of the next deliveries to answer 503 (a receiver that fails, then recovers);
- `GET /received`: `{"accepted": [<payload>...], "headers": [...], "rejected": n, "failed": n}`,
  the accepted payloads in the order they arrived.

Any other POST is a delivery: answered 503 while `fail_first` lasts, 400 when its signature
does not verify (counted in `rejected`), else 204 and kept.
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

STATE = {"secret": None, "fail_first": 0, "accepted": [], "headers": [], "rejected": 0, "failed": 0}
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, code, body=b""):
        self.send_response(code)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path != "/received":
            self.reply(404)
            return
        with LOCK:
            body = json.dumps({k: STATE[k] for k in ("accepted", "headers", "rejected", "failed")})
        self.reply(200, body.encode())

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if self.path == "/control":
            with LOCK:
                STATE.update(json.loads(body))
            self.reply(204)
            return
        with LOCK:
            if STATE["fail_first"] > 0:
                STATE["fail_first"] -= 1
                STATE["failed"] += 1
                self.reply(503)
                return
            try:
                payload = Webhook(STATE["secret"]).verify(body, dict(self.headers.items()))
            except (WebhookVerificationError, RuntimeError, TypeError, ValueError):
                STATE["rejected"] += 1
                self.reply(400)
                return
            STATE["accepted"].append(payload)
            STATE["headers"].append(
                {k: self.headers[k] for k in ("webhook-id", "webhook-timestamp", "content-type")}
            )
        self.reply(204)


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
