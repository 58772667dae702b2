// A person's seat of a cardlang game: the seat's table, its options as buttons, the
// story so far and the result, all from the server's messages for this seat only.
// Plain JS, no build step; the DOM is built with textContent (game texts are data).
"use strict";

const params = new URLSearchParams(location.search);
const token = params.get("token") || "";
const seat = location.pathname.split("/").filter(Boolean).pop();
const api = `/api/seat/${encodeURIComponent(seat)}`;
const $ = (id) => document.getElementById(id);

let decision = null; // the decision asked now (null when it is not our turn)
let options = [];
let texts = {}; // card name -> what the card says (the game's (text ...))
let looks = {}; // card name -> [badge, colour] (the game's card-badge, card-colour)
let faces = {}; // card name -> rank and suit symbol, for standard cards (table.py card_face)
let targets = []; // per option: ["card", name] or ["zone", ref] a click stands for, or null
// a decision with one option is made for the person unless they turn that off
const autoBox = () => $("auto-single");
let lastSeq = 0;
let over = false;

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function isRed(name) {
  return /hearts|diamonds/i.test(name);
}

// "Copper x4" -> ["Copper", 4]
function counted(entry) {
  const m = /^(.*) x(\d+)$/.exec(entry);
  return m ? [m[1], Number(m[2])] : [entry, 1];
}

// The option a card of yours (["card", name]) or a pile (["zone", ref]) stands for, when
// it is one move (equal labels are one move: the same card twice).  A click makes it.
function optionFor(kind, what) {
  if (decision === null || over || !what) return null;
  const found = [];
  targets.forEach((target, i) => {
    if (target && target[0] === kind && target[1] === what &&
        !found.some((j) => options[j] === options[i])) found.push(i);
  });
  return found.length === 1 ? found[0] : null;
}

// A standard card by rank and suit symbol (a king of the club suit: "K" and its symbol),
// as the table names it (table.py card_face, the terminal's too), else null: its name.
function faceOf(name) {
  return faces[name] || null;
}

function cardNode(entry, size, target) {
  const [name, count] = counted(entry);
  const node = el("div", null, isRed(name) ? "card red" : "card");
  const face = faceOf(name);
  node.append(el("span", face || name, face ? "card-name face" : "card-name"));
  if (face) node.title = name;
  const look = looks[name];
  if (look && look[0]) node.append(el("span", look[0], "badge"));
  if (look && look[1]) node.style.background = look[1]; // checked: a CSS name or #hex
  if (count > 1 || size !== undefined) node.append(el("span", `\u00d7${size ?? count}`, "count"));
  if (texts[name]) {
    node.title = texts[name];
    node.append(el("span", texts[name], "card-text"));
  }
  const index = target ? optionFor(...target) : null;
  if (index !== null) {
    node.classList.add("playable");
    node.title = `${options[index]}${texts[name] ? "\n" + texts[name] : ""}`;
    node.addEventListener("click", () => move(index));
  } else if (texts[name]) {
    // a card that is no move shows its whole text on a click (a phone has no hover)
    node.addEventListener("click", () => node.classList.toggle("open"));
  }
  return node;
}

// One pile of indexed locations (a Supply pile): its top card with the pile's size; a
// click takes from it when that is one move.
function pileNode(zone) {
  if (!zone.size) return el("div", "empty", "card gone");
  const top = counted(zone.cards[zone.cards.length - 1])[0];
  return cardNode(top, zone.size, ["zone", zone.ref]);
}

function renderZones(box, zones) {
  box.replaceChildren();
  if (!zones.length) box.append(el("p", "nothing", "empty"));
  let piles = null; // indexed locations of one name (a Supply): one box, a card per pile
  for (const zone of zones) {
    const owner = zone.owner === "you" || zone.owner === "game" ? "" : zone.owner + " ";
    const title = `${owner}${zone.name}`;
    if (piles && piles.title === title && zone.index !== null) {
      piles.cards.append(pileNode(zone));
      continue;
    }
    const div = el("div", null, "zone");
    div.append(el("div", zone.cards === null ? `${title} (${zone.size})` : title, "zone-name"));
    const cards = el("div", null, "cards");
    const grouped = zones.some((z) => z !== zone && z.index !== null && `${z.owner} ${z.name}` === `${zone.owner} ${zone.name}`);
    if (zone.cards === null) {
      cards.append(el("div", String(zone.size), "card back"));
    } else if (grouped) {
      cards.classList.add("piles"); // a Supply: small cards, the text on hover or click
      cards.append(pileNode(zone));
      piles = { title, cards };
    } else if (!zone.cards.length) {
      cards.append(el("span", "empty", "empty"));
    } else {
      for (const entry of zone.cards) {
        const mine = zone.owner === "you" ? ["card", counted(entry)[0]] : null;
        cards.append(cardNode(entry, undefined, mine));
      }
    }
    div.append(cards);
    box.append(div);
  }
}

// Where each seat sits around the middle, by its offset from you (you below).
const AROUND = { 2: ["bottom", "top"], 3: ["bottom", "left", "right"], 4: ["bottom", "left", "top", "right"] };

function renderMiddle(middle, players) {
  const box = $("middle");
  box.replaceChildren();
  $("middle-box").hidden = !middle.length;
  if (!middle.length) return;
  $("middle-name").textContent = middle[0][1].name;
  const places = AROUND[players] || [];
  for (const [offset, zone] of middle) {
    const seatBox = el("div", null, `seat at-${places[offset] || "bottom"}`);
    seatBox.append(el("div", zone.owner, "seat-name"));
    const cards = el("div", null, "cards");
    if (!zone.cards || !zone.cards.length) cards.append(el("span", "-", "empty"));
    else for (const entry of zone.cards) cards.append(cardNode(entry));
    seatBox.append(cards);
    box.append(seatBox);
  }
}

function renderStorages(storages) {
  const box = $("storages");
  box.replaceChildren();
  for (const [owner, values] of storages) {
    box.append(el("dt", owner));
    box.append(el("dd", values.map(([name, value]) => `${name} ${value}`).join(", ")));
  }
}

function renderTable(message, names) {
  if (!message) return;
  const table = message.table;
  decision = message.decision;
  options = table.options;
  texts = Object.fromEntries(table.card_texts || []);
  looks = Object.fromEntries((table.card_looks || []).map(([n, b, c]) => [n, [b, c]]));
  faces = Object.fromEntries(table.card_faces || []);
  targets = table.targets || [];
  renderMiddle(table.middle || [], table.players);
  renderZones($("yours"), table.yours);
  renderZones($("open"), table.open);
  $("board").classList.toggle("no-open", !table.open.length);
  renderZones($("hidden"), table.hidden);
  renderStorages(table.storages);
  $("scoreline").textContent = table.scores && table.scores.length
    ? `${table.score_text}: ` + table.scores.map(([who, v]) => `${who} ${v}`).join(", ")
    : "";
  // the game's own count ("Trick 3") where it gives one, else turns per player
  const round = table.round_text || `round ${Math.floor(table.turn / Math.max(table.players, 1)) + 1}`;
  const box = $("options");
  box.replaceChildren();
  $("move-error").textContent = "";
  $("advice-status").textContent = "";
  if (decision === null || over) {
    $("turn").hidden = true;
    if (!over) $("status").textContent = `${round}: waiting for the others`;
    return;
  }
  $("turn").hidden = false;
  $("situation").textContent = table.text || table.situation;
  // your counters (Actions, Buys, Coins) beside the buttons that spend them
  const mine = (table.storages || []).find(([owner]) => owner === "you");
  $("my-counters").textContent = mine
    ? mine[1].map(([name, value]) => `${name} ${value}`).join(" \u00b7 ")
    : "";
  $("status").textContent = `${round}: your move`;
  // equal labels are one move (two Coppers in hand): one button, with their count
  const seen = new Map();
  options.forEach((label, index) => {
    if (seen.has(label)) {
      const first = seen.get(label);
      first.count += 1;
      first.button.querySelector(".count").textContent = ` \u00d7${first.count}`;
      return;
    }
    const button = el("button", label, "option");
    button.type = "button";
    button.dataset.index = String(index);
    button.append(el("span", "", "count"));
    button.addEventListener("click", () => move(index));
    box.append(button);
    seen.set(label, { button, count: 1 });
  });
  $("advice-button").disabled = false;
  if (options.length === 1 && autoBox() && autoBox().checked) {
    $("status").textContent = `${round}: ${options[0]} (your only move, made for you)`;
    const asked = decision;
    setTimeout(() => { if (decision === asked) move(0); }, 400);
  }
}

function addStory(line) {
  const li = el("li", line.text, line.text.startsWith("You:") ? "you" : line.hidden ? "hidden" : "");
  li.dataset.seq = String(line.seq);
  if (line.then && line.then.length) {
    const more = el("ul", null, "then");
    for (const text of line.then) more.append(el("li", text));
    li.append(more);
  }
  $("story").append(li);
  li.scrollIntoView({ block: "nearest" });
}

// The scores: one column per seat; the game's score parts (its breakdown) above the total.
function showScores(result) {
  const scores = $("scores");
  scores.replaceChildren();
  const head = el("tr");
  head.append(el("th", ""));
  result.scores.forEach((_, p) => head.append(el("th", String(p) === seat ? `P${p} (you)` : `P${p}`)));
  scores.append(head);
  for (const [text, values] of result.parts || []) {
    const row = el("tr", "", "part");
    row.append(el("th", text));
    for (const value of values) row.append(el("td", String(value)));
    scores.append(row);
  }
  const total = el("tr", "", "total");
  total.append(el("th", "Score"));
  for (const score of result.scores) total.append(el("td", String(score)));
  scores.append(total);
}

function showResult(message) {
  if (!message) return;
  over = true;
  const result = message.result;
  $("turn").hidden = true;
  $("result").hidden = false;
  $("result-text").textContent = result.text;
  $("end-reason").textContent = result.reason || "";
  showScores(result);
  $("recorded").textContent = result.game_id === null ? "" : `recorded as game ${result.game_id}`;
  $("again-button").hidden = !result.again; // a server of one game offers no other
  $("status").textContent = "the game is over";
  document.body.dataset.over = "1";
}

function handle(message) {
  if (message.seq <= lastSeq && message.type !== "state") return;
  lastSeq = Math.max(lastSeq, message.seq);
  switch (message.type) {
    case "state":
      $("who").textContent = `you are P${message.seat} of ${message.players}: ` +
        message.names.map((n, p) => (p === message.seat ? `P${p} (you)` : n)).join(", ");
      $("who").title = (message.specs || []).map((s, p) => `P${p}: ${s}`).join("\n");
      $("story").replaceChildren();
      message.story.forEach(addStory);
      renderTable(message.table);
      showResult(message.over);
      if (message.error) $("status").textContent = `the game failed: ${message.error.message}`;
      break;
    case "table":
      renderTable(message);
      break;
    case "story":
      addStory(message);
      break;
    case "over":
      showResult(message);
      break;
    case "error":
      $("status").textContent = `the game failed: ${message.message}`;
      break;
    case "again": // another game at this table: the same link, a new deal
      location.reload();
      break;
  }
}

async function post(path, body) {
  const response = await fetch(`${api}/${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Cardlang-Token": token },
    body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({}));
  return { ok: response.ok, data };
}

let sent = null; // the decision a move was sent for: one move per decision (a click and
// the automatic only move may both try)

async function move(index) {
  const asked = decision;
  if (asked === null || sent === asked) return;
  sent = asked;
  for (const b of document.querySelectorAll("button.option")) b.disabled = true;
  const { ok, data } = await post("move", { decision: asked, option: index });
  if (decision !== asked) return; // the next decision came first: it is shown already
  if (!ok) {
    sent = null;
    $("move-error").textContent = data.error || "the move was refused";
    for (const b of document.querySelectorAll("button.option")) b.disabled = false;
  } else {
    $("turn").hidden = true;
  }
}

$("advice-button").addEventListener("click", async () => {
  $("advice-button").disabled = true;
  $("advice-status").textContent = "the advisor is thinking...";
  const { ok, data } = await post("advice", {});
  if (!ok || data.decision !== decision) {
    $("advice-status").textContent = ok ? "" : data.error || "no advice";
    return;
  }
  const values = data.values;
  if (values.every((v) => v === null)) {
    $("advice-status").textContent = "the advisor has no estimate for these options";
    return;
  }
  // how each option stands, from the server (session.py Advice.verdicts): the best is
  // marked only when no other is within the noise; a close call marks them all
  const verdicts = data.verdicts || [];
  document.querySelectorAll("button.option").forEach((button, i) => {
    const verdict = verdicts[i] || "";
    const said = verdict && verdict !== "worse" ? ` \u2014 ${verdict}` : "";
    button.append(el("span", `advisor: ${data.words[i]}${said}`, "value"));
    if (verdict === "best") button.classList.add("best");
    if (verdict === "about as good") button.classList.add("close");
    if (verdict === "uncertain") button.classList.add("uncertain");
  });
  const close = verdicts.filter((v) => v === "about as good").length;
  $("advice-status").textContent =
    `${data.advisor}: the chance to win, with its 95% interval` +
    (close ? `; a close call between ${close} options` : "");
});

$("again-button").addEventListener("click", async () => {
  $("again-button").disabled = true;
  $("again-status").textContent = "dealing...";
  const { ok, data } = await post("again", {});
  if (!ok) {
    $("again-button").disabled = false;
    $("again-status").textContent = data.error || "no new game";
  } // else the server's "again" message reloads the page
});

// Failed connections in a row: after a few, the page says the server is gone rather
// than "reconnecting..." forever (it keeps trying, more slowly, in case it comes back).
let failures = 0;
const GIVE_UP_AFTER = 5;

function refused(text) {
  $("who").textContent = "this page cannot show a seat";
  $("status").textContent = text;
  document.querySelector("main").hidden = true;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}${api}/stream?token=${encodeURIComponent(token)}`);
  socket.onopen = () => { failures = 0; };
  socket.onmessage = (event) => handle(JSON.parse(event.data));
  socket.onclose = (event) => {
    if (event.code === 4403) {
      refused("this link is wrong or out of date: its token is not this seat's. Use the link the server printed for this game.");
      return;
    }
    if (event.code === 4404) {
      refused("this link names no seat a person plays in this game.");
      return;
    }
    if (over) return;
    failures += 1;
    if (failures >= GIVE_UP_AFTER) {
      $("status").textContent = "the server does not answer: the game is over or the server was stopped.";
      $("turn").hidden = true; // a move could not reach it
      setTimeout(connect, 10000);
    } else {
      $("status").textContent = "connection lost; reconnecting...";
      setTimeout(connect, 1000);
    }
  };
}

connect();
