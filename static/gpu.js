// GPU status dashboard: polls GET status every few seconds with the Bearer token.
// The token is asked once and kept in localStorage (or given once as #token=... in the URL,
// handy on a phone). Data from the API is inserted with textContent only: command lines are
// arbitrary text chosen by whoever started the process.
"use strict";

const REFRESH_MS = 3000;
const TOKEN_KEY = "zt-gpu-api-token";
const $ = (id) => document.getElementById(id);

let token = localStorage.getItem(TOKEN_KEY) || "";
let timer = null;

function takeTokenFromFragment() {
  const match = location.hash.match(/(?:^#|&)token=([^&]+)/);
  if (!match) return;
  token = decodeURIComponent(match[1]);
  localStorage.setItem(TOKEN_KEY, token);
  history.replaceState(null, "", location.pathname + location.search);
}

function gib(mib) {
  return (mib / 1024).toFixed(1) + " GiB";
}

function levelOf(fraction) {
  if (fraction < 0.6) return "green";
  if (fraction < 0.85) return "orange";
  return "red";
}

function setBadge(kind, text) {
  const badge = $("idle");
  badge.className = "badge " + kind;
  badge.textContent = text;
}

function showLogin(message) {
  stop();
  $("view").hidden = true;
  $("login").hidden = false;
  $("login-error").hidden = !message;
  $("login-error").textContent = message || "";
  setBadge("unknown", "LOCKED");
  $("token").focus();
}

function showError(message) {
  $("login").hidden = true;
  $("view").hidden = false;
  $("error").hidden = false;
  $("error").textContent = message;
  setBadge("unknown", "UNKNOWN");
}

function renderGpus(status) {
  const box = $("gpus");
  const template = $("gpu-card");
  box.replaceChildren();
  for (const gpu of status.gpus) {
    const card = template.content.cloneNode(true);
    const na = new Set(gpu.unavailable || []);
    const fraction = gpu.memory_total_mib > 0 ? gpu.memory_used_mib / gpu.memory_total_mib : 0;
    card.querySelector(".gpu-name").textContent = gpu.name;
    card.querySelector(".gpu-index").textContent = "#" + gpu.index;
    card.querySelector(".util").textContent =
      na.has("utilization.gpu") ? "n/a" : gpu.utilization_pct + " %";
    card.querySelector(".temp").textContent =
      na.has("temperature.gpu") ? "n/a" : gpu.temperature_c + " °C";
    card.querySelector(".mem").textContent = na.has("memory.total")
      ? gib(gpu.memory_used_mib) + " used"
      : gib(gpu.memory_used_mib) + " / " + gib(gpu.memory_total_mib);
    const bar = card.querySelector(".bar");
    bar.setAttribute("aria-valuenow", String(Math.round(fraction * 100)));
    const fill = card.querySelector(".fill");
    fill.style.width = Math.min(100, fraction * 100).toFixed(1) + "%";
    fill.classList.add(levelOf(fraction));
    box.appendChild(card);
  }
}

function cell(row, label, text, className) {
  const td = document.createElement("td");
  td.dataset.label = label;
  if (className) td.className = className;
  if (label === "Command") {
    const code = document.createElement("code");
    code.textContent = text;
    td.appendChild(code);
  } else {
    td.textContent = text;
  }
  row.appendChild(td);
}

function renderProcesses(status) {
  const gpuIndex = new Map(status.gpus.map((g) => [g.uuid, g.index]));
  const body = $("procs").querySelector("tbody");
  body.replaceChildren();
  for (const proc of status.processes) {
    const row = document.createElement("tr");
    row.className = proc.on_gpu ? "on-gpu" : "watched";
    const where = proc.on_gpu
      ? (gpuIndex.has(proc.gpu_uuid) ? "GPU " + gpuIndex.get(proc.gpu_uuid) : "GPU")
      : "watched, not on GPU";
    if (proc.sleeping) row.classList.add("sleeping");
    cell(row, "PID", String(proc.pid), "num");
    cell(row, "Memory", proc.on_gpu ? gib(proc.memory_mib) : "–", "num");
    // Asleep: its weights are in RAM; what it keeps on the card does not make the GPU busy.
    cell(row, "Where", proc.sleeping ? where + " · vLLM asleep (memory it keeps; GPU free)" : where);
    cell(row, "Command", proc.command);
    body.appendChild(row);
  }
  $("procs").hidden = status.processes.length === 0;
  $("no-procs").hidden = status.processes.length !== 0;
}

function renderWaiting(status) {
  const papers = status.waiting ? status.waiting.papers : 0;
  $("waiting").hidden = !(papers > 0);
  $("waiting").textContent = papers > 0
    ? papers + (papers === 1 ? " paper waits" : " papers wait") + " for this GPU (zotero-translate)"
    : "";
}

function render(status) {
  $("login").hidden = true;
  $("view").hidden = false;
  $("error").hidden = true;
  renderWaiting(status);
  setBadge(status.is_idle ? "idle" : "busy", status.is_idle ? "IDLE" : "IN USE");
  renderGpus(status);
  renderProcesses(status);
  const notes = $("notes");
  notes.replaceChildren();
  for (const note of status.notes || []) {
    const li = document.createElement("li");
    li.textContent = note;
    notes.appendChild(li);
  }
  $("updated").textContent = new Date(status.checked_at).toLocaleTimeString();
}

// --- memory over time (GET timeline) ---------------------------------------------------------

const TIMELINE_MS = 15000;
const SVG = "http://www.w3.org/2000/svg";
const COLOURS = ["#3b7dd8", "#e07b39", "#4caf7a", "#9c6ade", "#d65a8b", "#8a8f98"];
const EVENT_WORDS = {
  started: "vLLM started", running: "vLLM already running", slept: "vLLM slept", woke: "vLLM woke", stopped: "vLLM stopped",
  waiting: "papers waiting", served: "no paper waiting",
};
const timeline = { samples: [], events: [], last: null, windowS: 0, fetchedAt: 0 };

function svgEl(name, attrs) {
  const el = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  return el;
}

async function refreshTimeline(headers) {
  if (Date.now() - timeline.fetchedAt < TIMELINE_MS) return;
  timeline.fetchedAt = Date.now();
  const url = timeline.last === null ? "timeline" : "timeline?since=" + timeline.last;
  const response = await fetch(url, { headers, cache: "no-store" }).catch(() => null);
  if (!response || !response.ok) return;
  const body = await response.json();
  timeline.windowS = body.window_s;
  timeline.samples.push(...body.samples);
  timeline.events.push(...body.events);
  const newest = [...body.samples, ...body.events].reduce((t, x) => Math.max(t, x.t), timeline.last || 0);
  timeline.last = newest || timeline.last;
  const cut = (timeline.last || 0) - timeline.windowS;
  timeline.samples = timeline.samples.filter((x) => x.t >= cut);
  timeline.events = timeline.events.filter((x) => x.t >= cut);
  drawTimeline();
}

// Stacked areas, one per process name (vLLM, ComfyUI, ...), over the kept window.
function drawTimeline() {
  const svg = $("timeline");
  const samples = timeline.samples;
  svg.replaceChildren();
  $("timeline-legend").replaceChildren();
  if (samples.length === 0) {
    $("timeline-span").textContent = "No samples yet.";
    return;
  }
  const width = 800, height = 220;
  const t0 = samples[0].t, t1 = Math.max(samples[samples.length - 1].t, t0 + 1);
  const top = Math.max(...samples.map((x) => x.memory_total_mib || x.memory_used_mib), 1);
  const x = (t) => ((t - t0) / (t1 - t0)) * width;
  const y = (mib) => height - (mib / top) * height;
  const names = [];
  for (const sample of samples) {
    for (const proc of sample.processes) if (!names.includes(proc.name)) names.push(proc.name);
  }
  // Papers waiting: shaded bands from "waiting" to "served".
  let since = null;
  for (const event of timeline.events) {
    if (event.kind === "waiting") since = event.t;
    if (event.kind === "served" && since !== null) {
      svg.append(svgEl("rect", { class: "waiting", x: x(since), y: 0, width: Math.max(2, x(event.t) - x(since)), height }));
      since = null;
    }
  }
  if (since !== null) svg.append(svgEl("rect", { class: "waiting", x: x(since), y: 0, width: Math.max(2, width - x(since)), height }));
  const below = samples.map(() => 0);
  names.forEach((name, i) => {
    const upper = samples.map((sample, k) => below[k] + sample.processes
      .filter((p) => p.name === name).reduce((sum, p) => sum + p.memory_mib, 0));
    const points = samples.map((sample, k) => `${x(sample.t).toFixed(1)},${y(upper[k]).toFixed(1)}`);
    const back = samples.map((sample, k) => `${x(sample.t).toFixed(1)},${y(below[k]).toFixed(1)}`).reverse();
    const colour = COLOURS[Math.min(i, COLOURS.length - 1)];
    const path = svgEl("polygon", { class: "series", points: [...points, ...back].join(" "), fill: colour, "fill-opacity": 0.75 });
    path.dataset.name = name;
    const title = svgEl("title", {});
    title.textContent = name;
    path.append(title);
    svg.append(path);
    upper.forEach((value, k) => { below[k] = value; });
    const item = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = colour;
    item.append(swatch, document.createTextNode(name));
    $("timeline-legend").append(item);
  });
  for (const event of timeline.events) {
    if (event.t < t0) continue;
    const line = svgEl("line", { class: "event " + event.kind, x1: x(event.t), x2: x(event.t), y1: 0, y2: height });
    const title = svgEl("title", {});
    title.textContent = new Date(event.t * 1000).toLocaleTimeString() + " " + event.text;
    line.append(title);
    svg.append(line);
  }
  const list = $("timeline-events");
  list.replaceChildren();
  for (const event of timeline.events.slice(-20).reverse()) {
    const li = document.createElement("li");
    li.className = event.kind;
    li.textContent = new Date(event.t * 1000).toLocaleTimeString() + " · " + (EVENT_WORDS[event.kind] || event.kind) + ": " + event.text;
    list.append(li);
  }
  const minutes = Math.round((t1 - t0) / 60);
  $("timeline-span").textContent = `The last ${minutes < 1 ? "minute" : minutes + " min"}, up to ${gib(top)}; shaded: papers waited.`;
}

async function refresh() {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = "Bearer " + token;
  let response;
  try {
    response = await fetch("status", { headers, cache: "no-store" });
  } catch (err) {
    showError("GPU status API unreachable: " + err.message);
    return schedule();
  }
  if (response.status === 401) {
    const hadToken = Boolean(token);
    token = "";
    localStorage.removeItem(TOKEN_KEY);
    return showLogin(hadToken ? "The token was rejected." : "");
  }
  let body = null;
  try {
    body = await response.json();
  } catch (err) {
    body = null;
  }
  if (response.ok && body) {
    render(body);
    refreshTimeline(headers);
  } else {
    const reason = body && body.reason ? body.reason : "HTTP " + response.status;
    showError("GPU unreadable: " + reason);
  }
  schedule();
}

function schedule() {
  stop();
  timer = setTimeout(refresh, REFRESH_MS);
}

function stop() {
  if (timer !== null) clearTimeout(timer);
  timer = null;
}

$("login").addEventListener("submit", (event) => {
  event.preventDefault();
  token = $("token").value.trim();
  if (!token) return;
  localStorage.setItem(TOKEN_KEY, token);
  $("token").value = "";
  refresh();
});

$("forget").addEventListener("click", () => {
  token = "";
  localStorage.removeItem(TOKEN_KEY);
  showLogin("");
});

takeTokenFromFragment();
refresh();
