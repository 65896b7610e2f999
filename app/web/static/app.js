// lifemem's page: the audio links play in place, the marked parts of a page follow the live events, and a
// requested answer streams in. Everything works without this script, only less live.
"use strict";
(() => {
  const LIVE_KINDS = ["stored", "session_start", "session_end", "session_split", "person_new", "person_named", "identity"];
  const status = document.getElementById("live");

  // audio: one player for every play link
  let player = null;
  let playing = null;
  const mark = (link, state) => { if (link) link.dataset.state = state; };
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[data-audio]");
    if (!link) return;
    event.preventDefault();
    if (player && playing === link && !player.paused) { player.pause(); return; }
    if (player) player.pause();
    player = new Audio(link.href);
    playing = link;
    player.addEventListener("pause", () => mark(link, ""));
    player.addEventListener("ended", () => mark(link, ""));
    player.addEventListener("error", () => mark(link, "error"));
    mark(link, "playing");
    player.play().catch(() => mark(link, "error"));
  });

  // live: parts marked data-live="on" are fetched again and swapped in when the recorder reports something
  let pending = null;
  async function refresh() {
    const parts = [...document.querySelectorAll('[data-live="on"]')];
    if (!parts.length) return;
    const reply = await fetch(location.href, { headers: { "X-Live": "1" }, credentials: "same-origin" });
    if (!reply.ok || reply.redirected) return;
    const fresh = new DOMParser().parseFromString(await reply.text(), "text/html");
    for (const part of parts) {
      const next = fresh.getElementById(part.id);
      if (next && !part.contains(document.activeElement)) part.replaceWith(next);
    }
  }
  function onEvent(kind, data) {
    if (kind === "identity" && status) status.textContent = data.person ? `with ${data.person} now` : "live";
    clearTimeout(pending);
    pending = setTimeout(() => refresh().catch(() => {}), 300);
  }
  if (window.EventSource && document.body.dataset.csrf) {
    const events = new EventSource("/live");
    events.onopen = () => { if (status && !status.textContent.startsWith("with")) status.textContent = "live"; };
    events.onerror = () => { if (status) status.textContent = "reconnecting…"; };
    for (const kind of LIVE_KINDS) {
      events.addEventListener(kind, (event) => onEvent(kind, JSON.parse(event.data)));
    }
  }

  // a requested answer: the model's words as they come, then the answer with its citations
  const answer = document.querySelector("[data-stream]");
  if (answer && window.EventSource) {
    const text = answer.querySelector(".answer-text");
    const stream = new EventSource(answer.dataset.stream);
    let started = false;
    const finish = (html) => {
      stream.close();
      const heading = answer.querySelector("h2");
      answer.innerHTML = html;
      answer.prepend(heading);
      answer.dataset.done = "1";
    };
    stream.addEventListener("token", (event) => {
      if (!started) { text.textContent = ""; text.classList.remove("pending"); started = true; }
      text.textContent += JSON.parse(event.data).text;
    });
    stream.addEventListener("result", (event) => finish(JSON.parse(event.data).html));
    stream.addEventListener("failed", (event) => finish(JSON.parse(event.data).html));
    stream.onerror = () => { if (!answer.dataset.done) finish('<p class="notice error" role="alert">The answer stream broke off; search again.</p>'); };
  }
})();
