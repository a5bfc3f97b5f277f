// A Node stand-in for the three self-hosted services of Translate for Zotero
// (windingwind/zotero-pdf-translate): LibreTranslate, DeepLX and Custom GPT.
//
// That plugin is AGPL-3.0, so nothing of its code is copied here: this client was written
// from the request and answer shapes its services use (read in its source, summarised in
// docs/zotero-reader-plugins.md): the endpoint a user enters, the JSON body, the headers it
// sets, the way it reads the answer and what it treats as a failure.
//
// Usage: node translate_for_zotero.mjs '<job json>'; prints {"result": ...} or {"error": ...}.
// Job: {"service": "libretranslate"|"deeplx"|"customgpt", "endpoint": URL, "raw": text,
//       "langfrom": "en-US", "langto": "zh-CN", "secret": "", "model": "", "prompt": "",
//       "stream": true}

const job = JSON.parse(process.argv[2]);

async function post(url, headers, body) {
  const response = await fetch(url, { method: "POST", headers, body });
  const text = await response.text();
  return { status: response.status, text };
}

// LibreTranslate: {q, source, target, format: "text"} (+ api_key when a secret is set) to
// `${endpoint}/translate`; the answer's translatedText; a non-200 or an "error" fails.
async function libretranslate(task) {
  const body = {
    q: task.raw,
    source: task.langfrom.split("-")[0],
    target: task.langto.split("-")[0],
    format: "text",
  };
  if (task.secret) body.api_key = task.secret;
  const reply = await post(
    `${task.endpoint}/translate`,
    { "Content-Type": "application/json" },
    JSON.stringify(body),
  );
  if (reply.status !== 200) throw new Error(`Request error: ${reply.status} ${reply.text}`);
  const answer = JSON.parse(reply.text);
  if (answer.error) throw new Error(`Service error: ${answer.error}`);
  return answer.translatedText;
}

// DeepL's language codes as that service maps them: a few regions kept, else the base, upper.
function deeplLang(code) {
  const special = {
    "pt-BR": "PT-BR", "pt-PT": "PT-PT", "zh-CN": "ZH-HANS", "zh-SG": "ZH-HANS",
    "zh-TW": "ZH-HANT", "zh-HK": "ZH-HANT", "zh-MO": "ZH-HANT",
  };
  return special[code] ?? code.split("-")[0].toUpperCase();
}

// "DeepLX": DeepL's web JSON-RPC (LMT_handle_texts) to the endpoint as entered, with the
// query string and the browser-extension headers it sends; the answer's result.texts[0].text.
async function deeplx(task) {
  const id = 1000 * (8300000 + Math.floor(Math.random() * 99999)) + 1;
  const now = Date.now();
  const count = (task.raw.match(/i/g) || []).length + 1;
  let body = JSON.stringify({
    jsonrpc: "2.0",
    method: "LMT_handle_texts",
    id,
    params: {
      texts: [{ text: task.raw, requestAlternatives: 3 }],
      splitting: "newlines",
      lang: {
        source_lang_user_selected: deeplLang(task.langfrom),
        target_lang: deeplLang(task.langto),
      },
      timestamp: now - (now % count) + count,
      commonJobParams: { wasSpoken: false, transcribe_as: "" },
    },
  });
  body = body.replace('"method":"', '"method": "'); // the spacing DeepL's own client sends
  const reply = await post(
    `${task.endpoint}?client=chrome-extension,1.28.0&method=LMT_handle_jobs`,
    {
      Accept: "*/*",
      Authorization: "None",
      "Content-Type": "application/json",
      Origin: "chrome-extension://cofdbpoegempjloogbagkncekinflcnj",
      Referer: "https://www.deepl.com/",
      "Sec-Fetch-Site": "none",
      "Sec-Fetch-Mode": "cors",
    },
    body,
  );
  if (reply.status !== 200) throw new Error(`Request error: ${reply.status} ${reply.text}`);
  return JSON.parse(reply.text).result.texts[0].text;
}

// Custom GPT: {model, messages: [{role: "user", content: prompt}], temperature, stream} to the
// endpoint as entered, the prompt's ${langFrom}/${langTo}/${sourceText} filled in; with
// stream, the SSE text split at "data:" and each delta's content appended (what does not parse,
// "[DONE]", is skipped); without, choices[0].message.content. A leading "\n\n" is dropped.
async function customgpt(task) {
  const prompt = task.prompt
    .replaceAll("${langFrom}", task.langfrom)
    .replaceAll("${langTo}", task.langto)
    .replaceAll("${sourceText}", task.raw);
  const stream = task.stream ?? true;
  const reply = await post(
    task.endpoint,
    {
      "Content-Type": "application/json",
      Authorization: `Bearer ${task.secret}`,
      "api-key": task.secret,
    },
    JSON.stringify({
      model: task.model,
      messages: [{ role: "user", content: prompt }],
      temperature: 1.0,
      stream,
      ...(task.customParams ?? {}),
    }),
  );
  if (reply.status !== 200) throw new Error(`Request error: ${reply.status} ${reply.text}`);
  let result = "";
  if (stream) {
    for (const piece of reply.text.split("data:")) {
      if (!piece.trim()) continue;
      let event;
      try {
        event = JSON.parse(piece);
      } catch {
        continue;
      }
      const choice = event.choices?.[0];
      result += choice?.delta?.content || "";
      if (choice && choice.finish_reason !== undefined && choice.finish_reason !== null) break;
    }
  } else {
    result = JSON.parse(reply.text).choices[0].message.content || "";
  }
  return result.replace(/^\n\n/, "");
}

const services = { libretranslate, deeplx, customgpt };
try {
  const result = await services[job.service](job);
  console.log(JSON.stringify({ result }));
} catch (error) {
  console.log(JSON.stringify({ error: String(error.message ?? error) }));
}
