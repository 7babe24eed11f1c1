// The Assistant page's one script (served from the portal's own origin; the page's content
// security policy allows this file and nothing else). Without it the page still works: the
// question is a form post and the answer is shown when it is complete. With it, the answer
// streams in as it is written (server-sent events over fetch), into the conversation's log
// region, which screen readers announce once the answer is complete (aria-busy meanwhile).
// Text is only ever set as text, never parsed as HTML.
(function () {
  "use strict";
  var chat = document.getElementById("chat");
  var form = document.getElementById("ask");
  if (!chat || !form || !window.fetch || !window.TextDecoder) {
    return;
  }
  var transcript = document.getElementById("transcript");
  var status = document.getElementById("status");
  var field = document.getElementById("message");
  var send = document.getElementById("send");
  var conversation = chat.getAttribute("data-conversation");
  var csrf = chat.getAttribute("data-csrf");

  function line(parent, cls, text) {
    var p = document.createElement("p");
    p.className = cls;
    p.textContent = text;
    parent.appendChild(p);
    return p;
  }

  function turn(role) {
    var div = document.createElement("div");
    div.className = "turn " + role;
    line(div, "speaker", role === "user" ? "You" : "Assistant");
    transcript.appendChild(div);
    return div;
  }

  function cited(list) {
    return list
      .map(function (c) { return c.call_ref || c.list_version; })
      .filter(Boolean)
      .join(", ");
  }

  function finish(text) {
    transcript.setAttribute("aria-busy", "false");
    send.disabled = false;
    status.textContent = text;
  }

  form.addEventListener("submit", function (event) {
    var message = field.value;
    if (!message.trim()) {
      return;
    }
    event.preventDefault();
    send.disabled = true;
    status.textContent = "Asking\u2026";
    transcript.setAttribute("aria-busy", "true");
    var answer = null;
    var text = null;
    function handle(name, data) {
      if (name === "accepted") {
        line(turn("user"), "text", data.message);
        answer = turn("assistant");
        field.value = "";
      } else if (name === "text") {
        if (!text) {
          text = line(answer, "text", "");
        }
        text.textContent += data.text;
      } else if (name === "tool_call") {
        text = null;
        line(answer, "tool", "Asked " + data.name);
      } else if (name === "tool_result") {
        text = null;
        line(answer, data.ok ? "tool ok" : "tool failed",
          data.ok ? data.name + ": " + data.summary
                  : data.name + " was refused (" + data.error + "): " + data.message);
      } else if (name === "done") {
        if (data.cited && data.cited.length) {
          line(answer, "evidence", "Evidence: " + cited(data.cited));
        }
        finish(data.stop === "answered" ? "Answered." :
          data.stop === "round_limit" ? "Stopped: the assistant called tools too many times for one question." :
          "Stopped: the answer reached its length limit.");
      } else if (name === "error") {
        line(answer || transcript, "failed", "No answer (" + data.error + "): " + data.message);
        finish("No answer: " + data.message);
      }
    }
    fetch("/v1/assistant/conversations/" + encodeURIComponent(conversation) + "/messages", {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", "x-csrf-token": csrf },
      body: JSON.stringify({ message: message })
    }).then(function (response) {
      if (!response.ok) {
        return response.json().then(function (e) {
          finish("Not sent (" + e.error + "): " + e.message);
        });
      }
      var reader = response.body.getReader();
      var decoder = new TextDecoder();
      var buffer = "";
      function pump() {
        return reader.read().then(function (chunk) {
          if (chunk.done) {
            if (transcript.getAttribute("aria-busy") === "true") {
              finish("The answer broke off.");
            }
            return;
          }
          buffer += decoder.decode(chunk.value, { stream: true });
          var end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            var frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            var name = "message";
            var data = "";
            frame.split("\n").forEach(function (l) {
              if (l.indexOf("event: ") === 0) { name = l.slice(7); }
              else if (l.indexOf("data: ") === 0) { data += l.slice(6); }
            });
            if (data) { handle(name, JSON.parse(data)); }
          }
          return pump();
        });
      }
      return pump();
    }).catch(function () {
      finish("The answer could not be read; the conversation keeps what was said.");
    });
  });
})();
