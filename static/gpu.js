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
    cell(row, "Where", proc.sleeping ? where + " · vLLM asleep (residue)" : where);
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
