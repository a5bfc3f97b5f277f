// The progress page: one EventSource on /events keeps every job, the files waiting for
// download and the vLLM/GPU state current. The upload form speaks the plugin's own protocol
// (JSON body, data URL, async "accepted" reply), so the page needs no API of its own.
"use strict";

const state = {
  jobs: new Map(), files: new Set(), source: null, lastEventId: null,
  pages: new Map(), // taskId -> Map(page number -> entry of GET /api/tasks/{id}/pages)
  partial: new Map(), // taskId -> URL of the partial PDF while the job runs
  sent: new Map(), // taskId -> the /translate body this tab sent (what Retry sends again)
};
const $ = (id) => document.getElementById(id);

// A page opened at /t/<token>/ (the address the plugin is given) carries its token in the path.
function token() {
  const inPath = /^\/t\/([^/]+)/.exec(location.pathname);
  return inPath ? decodeURIComponent(inPath[1]) : localStorage.getItem("zt-token") || "";
}

function withToken(url) {
  const t = token();
  if (!t) return url;
  return url + (url.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(t);
}

function authHeaders() {
  const t = token();
  return t ? { Authorization: "Bearer " + t } : {};
}

function askForToken() {
  $("token-box").hidden = false;
  $("live").textContent = "token needed";
}

// --- rendering ------------------------------------------------------------------------------

function describeServer(server) {
  if (!server) return;
  const vllm = server.vllm || {};
  let text = server.state || "unknown";
  if (vllm.healthy) text = server.state === "asleep"
    ? "asleep (GPU handed back; the next paper wakes it in seconds)" : "ready";
  // While it loads, "connection refused" is expected, not news: say what is happening.
  else if (server.state === "starting") text = "starting: vLLM is loading the model";
  else if (vllm.detail) text = `${text}: ${vllm.detail}`;
  if (!server.manager) text = "checking…"; // nothing read yet: no verdict to show
  const waiting = server.waiting_gpu || 0;
  if (waiting && !vllm.healthy) {
    text += ` · ${waiting} paper${waiting === 1 ? "" : "s"} waiting for the GPU`;
  }
  if (server.last_error) text += " · last error: " + server.last_error;
  $("vllm-state").textContent = text;
  $("manager-state").textContent = server.manager_reason || server.manager || "checking…";
  describeAdvice(server.advice);
  const gpu = server.gpu;
  let gpuText = "checking…";
  if (gpu && gpu.message) gpuText = gpu.message;
  else if (gpu && gpu.decision) gpuText = gpu.decision;
  else if (server.manager === "none") gpuText = "not watched (this server never starts vLLM)";
  $("gpu-state").textContent = gpuText;
  describeHosts(server.hosts);
}

// No model answers and this server will not start one: the URL tried and the real fixes.
function describeAdvice(advice) {
  const box = $("vllm-advice");
  box.hidden = !advice;
  if (!advice) return;
  $("vllm-advice-title").textContent = advice.title;
  $("vllm-advice-fixes").replaceChildren(...(advice.fixes || []).map((fix) => {
    const item = document.createElement("li");
    item.textContent = fix;
    return item;
  }));
}

// Several GPU hosts (ZT_HOSTS): one line each, state, holder, limit, in flight, answered.
function describeHosts(hosts) {
  const several = Array.isArray(hosts) && hosts.length > 0;
  $("hosts-label").hidden = $("hosts-state").hidden = !several;
  if (!several) return;
  const box = $("hosts-state");
  box.replaceChildren(...hosts.map((host) => {
    const line = document.createElement("div");
    line.className = "host";
    line.dataset.host = host.name;
    let text = `${host.name}: ${host.state}`;
    if (host.holder) text += ` (${host.holder})`;
    text += ` · ${host.in_flight}/${host.limit} in flight · ${host.answered} answered`;
    line.textContent = text;
    return line;
  }));
}

function countJobs() {
  let running = 0, queued = 0, waiting = 0;
  for (const job of state.jobs.values()) {
    if (job.finished) continue;
    if (job.stageText === "queued") queued += 1;
    else if (job.stage === "waiting_gpu") waiting += 1;
    else running += 1;
  }
  const gpu = waiting ? `, ${waiting} waiting for the GPU` : "";
  $("job-counts").textContent = `${running} running, ${queued} queued${gpu}`;
  $("no-jobs").hidden = state.jobs.size > 0;
}

function jobElement(job) {
  let li = document.querySelector(`li[data-task-id="${job.taskId}"]`);
  if (!li) {
    li = $("job-template").content.firstElementChild.cloneNode(true);
    li.dataset.taskId = job.taskId;
    $("jobs").prepend(li);
  }
  return li;
}

function renderFiles(li, job) {
  const list = li.querySelector(".files");
  list.replaceChildren();
  for (const name of job.fileList || []) {
    const item = document.createElement("li");
    if (state.files.has(name)) {
      const link = document.createElement("a");
      link.href = withToken("/translatedFile/" + encodeURIComponent(name));
      link.textContent = name;
      link.download = name;
      item.append(link);
    } else {
      item.className = "gone";
      item.textContent = name + " (downloaded)";
    }
    list.append(item);
  }
}

// "2nd in line" while queued, "about 3 min left" while translating (the job's own pace).
function describeWait(job) {
  if (job.finished) return "";
  if (job.position) return job.position === 1 ? "next in line" : `#${job.position} in line`;
  const eta = job.etaSeconds;
  if (eta === null || eta === undefined) return "";
  if (eta < 60) return "less than a minute left";
  return `about ${Math.round(eta / 60)} min left`;
}

async function cancelJob(taskId, button) {
  button.disabled = true;
  try {
    const response = await fetch("/api/tasks/" + encodeURIComponent(taskId), {
      method: "DELETE",
      headers: authHeaders(),
    });
    if (response.status === 401) askForToken();
    const answer = await response.json().catch(() => ({}));
    // The task's own "failed" event redraws it; this only covers a lost event stream.
    if (answer.task) onJobEvent({ type: answer.task.stage, data: JSON.stringify(answer.task) });
  } finally {
    button.disabled = false;
  }
}

// Dismiss: the server forgets the finished job; its "dismissed" event takes it off every page.
async function dismissJob(taskId, button) {
  button.disabled = true;
  try {
    const response = await fetch(`/api/tasks/${encodeURIComponent(taskId)}/dismiss`, {
      method: "POST",
      headers: authHeaders(),
    });
    if (response.status === 401) askForToken();
    if (response.ok || response.status === 404) forgetJob(taskId);
  } finally {
    button.disabled = false;
  }
}

function forgetJob(taskId) {
  state.jobs.delete(taskId);
  state.pages.delete(taskId);
  state.partial.delete(taskId);
  state.sent.delete(taskId);
  const li = document.querySelector(`li[data-task-id="${taskId}"]`);
  if (li) li.remove();
  countJobs();
}

// Retry: the same PDF and options again, as a new job; the failed one leaves the list.
async function retryJob(taskId, button) {
  const body = state.sent.get(taskId);
  if (!body) return;
  button.disabled = true;
  try {
    await sendTranslate(body);
    await dismissJob(taskId, button);
  } catch (err) {
    const li = document.querySelector(`li[data-task-id="${taskId}"]`);
    if (li) li.querySelector(".message").textContent = "retry failed: " + err.message;
  } finally {
    button.disabled = false;
  }
}

function renderJob(job) {
  const li = jobElement(job);
  const cancel = li.querySelector(".cancel");
  cancel.hidden = Boolean(job.finished);
  cancel.onclick = () => cancelJob(job.taskId, cancel);
  const retry = li.querySelector(".retry");
  retry.hidden = !(job.stage === "failed" && state.sent.has(job.taskId));
  retry.onclick = () => retryJob(job.taskId, retry);
  const dismiss = li.querySelector(".dismiss");
  dismiss.hidden = !job.finished;
  dismiss.onclick = () => dismissJob(job.taskId, dismiss);
  li.querySelector(".when").textContent = describeWait(job);
  li.classList.toggle("done", job.stage === "done");
  li.classList.toggle("failed", job.stage === "failed");
  li.querySelector(".name").textContent = job.fileName;
  const stage = li.querySelector(".stage");
  stage.textContent = job.stageText;
  stage.className = "stage pill " + job.stage;
  const pct = Math.max(0, Math.min(100, Math.round(job.progress)));
  li.querySelector(".fill").style.width = pct + "%";
  li.querySelector(".bar").setAttribute("aria-valuenow", String(pct));
  li.querySelector(".pct").textContent = pct + "%";
  li.querySelector(".message").textContent = job.message || "";
  renderFiles(li, job);
  renderPartial(li, job.taskId);
}

// --- page previews (GET /api/tasks/{id}/pages, "page" events) -------------------------------

const PAGE_WORDS = { waiting: "waiting for the model", typesetting: "typesetting" };

function renderPartial(li, taskId) {
  const link = li.querySelector(".partial");
  const url = state.partial.get(taskId);
  link.hidden = !url;
  if (url) link.href = withToken(url);
}

// One element per page, updated in place: hundreds of thumbnails stay cheap.
function renderPages(taskId, numbers) {
  const li = document.querySelector(`li[data-task-id="${taskId}"]`);
  const pages = state.pages.get(taskId);
  if (!li || !pages) return;
  const strip = li.querySelector(".pages");
  for (const number of numbers || [...pages.keys()].sort((a, b) => a - b)) {
    const entry = pages.get(number);
    let item = strip.querySelector(`li[data-page="${number}"]`);
    if (!item) {
      item = document.createElement("li");
      item.dataset.page = String(number);
      // Kept in page order whatever order the pages are set in.
      const after = [...strip.children].find((other) => Number(other.dataset.page) > number);
      strip.insertBefore(item, after || null);
    }
    const ended = state.jobs.get(taskId);
    const stopped = Boolean(ended && ended.stage === "failed" && entry.state !== "done");
    const shown = entry.state + (stopped ? ":failed" : "");
    if (item.dataset.state === shown && item.dataset.preview === String(entry.preview)) continue;
    item.dataset.state = shown;
    item.dataset.preview = String(entry.preview);
    item.className = entry.state;
    item.title = `page ${number}: ${stopped ? "not translated" : PAGE_WORDS[entry.state] || entry.state}`;
    const label = document.createElement("span");
    label.className = "num";
    label.textContent = String(number);
    if (entry.preview) {
      const img = document.createElement("img");
      img.loading = "lazy";
      img.alt = `page ${number}`;
      img.src = withToken(entry.preview);
      item.replaceChildren(img, label);
      item.onclick = () => showPage(taskId, number);
    } else {
      const text = document.createElement("span");
      // Done with no image: set while nobody watched, and its job has ended (no more renders).
      const viewable = entry.state === "done" && Boolean(entry.large || entry.original);
      text.textContent = entry.state === "done" ? (viewable ? "done" : "done · no preview")
        : stopped ? "not translated" : PAGE_WORDS[entry.state] || entry.state;
      if (entry.state === "done" && !viewable) item.classList.add("no-preview");
      item.replaceChildren(text, label);
      item.onclick = viewable ? () => showPage(taskId, number) : null;
    }
  }
}

function showPage(taskId, number) {
  const entry = (state.pages.get(taskId) || new Map()).get(number);
  if (!entry) return;
  const job = state.jobs.get(taskId);
  $("page-view-title").textContent = `${job ? job.fileName : ""} · page ${number}`;
  // The original is rendered from the upload, which goes when the job ends: say so, no broken image.
  const original = $("page-original");
  const gone = () => {
    original.hidden = true;
    $("page-original-note").hidden = false;
  };
  original.hidden = false;
  $("page-original-note").hidden = true;
  original.onerror = gone;
  if (entry.original) original.src = withToken(entry.original);
  else { original.removeAttribute("src"); gone(); }
  // A large view asked for as its job ends is never rendered (404): show the thumbnail kept.
  const large = $("page-translated");
  large.onerror = entry.large && entry.preview
    ? () => { large.onerror = null; large.src = withToken(entry.preview); }
    : null;
  large.src = withToken(entry.large || entry.preview || "");
  $("page-view").showModal();
}

function mergePages(taskId, entries) {
  let pages = state.pages.get(taskId);
  if (!pages) state.pages.set(taskId, (pages = new Map()));
  for (const entry of entries) pages.set(entry.page, entry);
}

async function loadPages(taskId) {
  const response = await fetch(`/api/tasks/${encodeURIComponent(taskId)}/pages`, {
    headers: authHeaders(),
  }).catch(() => null);
  if (!response || !response.ok) return;
  const body = await response.json();
  state.pages.set(taskId, new Map());
  mergePages(taskId, body.pages || []);
  if (body.partial) state.partial.set(taskId, body.partial); else state.partial.delete(taskId);
  const li = document.querySelector(`li[data-task-id="${taskId}"]`);
  if (li) {
    li.querySelector(".pages").replaceChildren();
    renderPartial(li, taskId);
  }
  renderPages(taskId);
}

function onPageEvent(message) {
  const { task: taskId, pages } = JSON.parse(message.data);
  if (!state.pages.has(taskId)) {
    loadPages(taskId); // the first we hear of it: the whole list, with the partial PDF's URL
    return;
  }
  mergePages(taskId, pages);
  renderPages(taskId, pages.map((entry) => entry.page));
}

function renderAll() {
  $("jobs").replaceChildren();
  // Stable on ties (startTime has whole seconds): the snapshot's order, oldest first, stays.
  const jobs = [...state.jobs.values()].sort(
    (a, b) => (a.startTime > b.startTime) - (a.startTime < b.startTime),
  );
  for (const job of jobs) renderJob(job);
  countJobs();
  for (const job of jobs) {
    if (job.operation !== "crop") loadPages(job.taskId);
  }
}

// --- live updates ---------------------------------------------------------------------------

function onJobEvent(message) {
  const job = JSON.parse(message.data);
  state.jobs.set(job.taskId, job);
  if (message.type === "done") for (const name of job.fileList || []) state.files.add(name);
  renderJob(job);
  countJobs();
  if (message.type === "done" || message.type === "failed") loadPages(job.taskId);
}

function connect() {
  if (state.source) state.source.close();
  const source = new EventSource(withToken("/events"));
  state.source = source;
  source.onopen = () => { $("live").textContent = "live"; $("live").className = "pill on"; };
  source.onerror = () => {
    $("live").textContent = "reconnecting";
    $("live").className = "pill off";
    // EventSource retries by itself; a 401 makes it give up, so find out why it closed.
    if (source.readyState === EventSource.CLOSED) {
      fetch("/api/tasks", { headers: authHeaders() }).then((r) => {
        if (r.status === 401) askForToken(); else setTimeout(connect, 2000);
      }).catch(() => setTimeout(connect, 2000));
    }
  };
  source.addEventListener("snapshot", (message) => {
    const snap = JSON.parse(message.data);
    state.jobs = new Map((snap.jobs || []).map((job) => [job.taskId, job]));
    state.files = new Set(snap.files || []);
    $("version").textContent = snap.version ? "v" + snap.version : "";
    if (snap.defaults) {
      $("source").placeholder = snap.defaults.sourceLang;
      $("target").placeholder = snap.defaults.targetLang;
      const terms = snap.defaults.glossaryTerms || 0;
      $("glossary-note").textContent = terms
        ? `the server's glossary (${terms} term${terms === 1 ? "" : "s"}) applies too; this file's rows win`
        : "";
    }
    if (snap.languages) {
      // A pick list; the boxes still take any code or English name the server accepts.
      $("languages").replaceChildren(...snap.languages.map((lang) => {
        const option = document.createElement("option");
        option.value = lang.code;
        option.label = `${lang.name} (${lang.code})`;
        return option;
      }));
    }
    describeServer(snap.server);
    renderAll();
  });
  for (const type of ["stage", "progress", "done", "failed"]) {
    source.addEventListener(type, onJobEvent);
  }
  source.addEventListener("file_removed", (message) => {
    const { name } = JSON.parse(message.data);
    state.files.delete(name);
    for (const job of state.jobs.values()) {
      if ((job.fileList || []).includes(name)) renderJob(job);
    }
  });
  source.addEventListener("server", (message) => describeServer(JSON.parse(message.data)));
  source.addEventListener("page", onPageEvent);
  source.addEventListener("dismissed", (message) => forgetJob(JSON.parse(message.data).task));
}

// --- the upload form ------------------------------------------------------------------------

function readAsDataURL(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

function keepFile(input, file) {
  const kept = new DataTransfer();
  kept.items.add(file);
  input.files = kept.files;
}

// POST /translate (async); the new task's id. Throws with the server's message.
async function sendTranslate(body) {
  const response = await fetch("/translate", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-PDF2zh-Protocol": "accepted", ...authHeaders() },
    body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({ message: response.statusText }));
  if (response.status === 401) askForToken();
  if (!response.ok || answer.status === "error") {
    throw new Error(answer.message || "HTTP " + response.status);
  }
  if (answer.taskId) {
    state.sent.set(answer.taskId, body);
    const job = state.jobs.get(answer.taskId);
    if (job) renderJob(job); // its events may have come first
  }
  return answer.taskId;
}

async function upload(event) {
  event.preventDefault();
  const error = $("upload-error");
  error.hidden = true;
  const file = $("file").files[0];
  if (!file) return;
  const button = $("submit");
  button.disabled = true;
  try {
    const body = {
      fileName: file.name,
      fileContent: await readAsDataURL(file),
      sourceLang: $("source").value.trim(),
      targetLang: $("target").value.trim(),
      skipLastPages: String($("skip").value || "0"),
      mono: String($("mono").checked),
      dual: String($("dual").checked),
      dualMode: $("dual-mode").value,
      asyncJob: "true",
    };
    if ($("password").value) body.password = $("password").value;
    const glossary = $("glossary").files[0];
    if (glossary) {
      // The server refuses more (MAX_REQUEST_BYTES); say so before sending the PDF.
      if (glossary.size > 64 * 1024) throw new Error("the glossary file is larger than 64 KiB");
      body.glossary = await readAsDataURL(glossary); // base64: no quotes or commas in the body
    }
    await sendTranslate(body);
    $("upload").reset();
    if (glossary) keepFile($("glossary"), glossary); // the next paper likely wants it too
  } catch (err) {
    error.textContent = err.message;
    error.hidden = false;
  } finally {
    button.disabled = false;
  }
}

$("upload").addEventListener("submit", upload);
$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  localStorage.setItem("zt-token", $("token").value.trim());
  $("token-box").hidden = true;
  connect();
});
connect();
