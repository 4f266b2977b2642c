/// The search page: one self-contained document (no front-end build, nothing fetched from elsewhere). Its script
/// reads the token from the page's address and sends it with every request.
enum SearchPageHTML {
    static let page = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Spotlight</title>
<style>
  :root { color-scheme: light dark; --accent: #0a64d8; --muted: #6b7280; --line: rgba(127,127,127,.25); --selected: rgba(10,100,216,.14); }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.4 system-ui, -apple-system, "Cantarell", "Segoe UI", sans-serif; }
  main { max-width: 760px; margin: 48px auto; padding: 0 16px; }
  #query { width: 100%; font-size: 22px; padding: 12px 16px; border: 1px solid var(--line); border-radius: 12px; outline: none; }
  #query:focus { border-color: var(--accent); box-shadow: 0 0 0 3px var(--selected); }
  #status { color: var(--muted); font-size: 13px; margin: 8px 4px 16px; min-height: 18px; }
  section.app h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin: 18px 4px 6px; }
  ol { list-style: none; margin: 0; padding: 0; }
  li.result { display: flex; gap: 12px; align-items: center; padding: 8px 12px; border-radius: 10px; cursor: default; }
  li.result[aria-selected="true"] { background: var(--selected); }
  li.result .text { flex: 1; min-width: 0; }
  li.result .title { font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  li.result .subtitle { color: var(--muted); font-size: 13px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  mark { background: none; color: inherit; text-decoration: underline; text-decoration-thickness: 2px; text-decoration-color: var(--accent); font-weight: 700; }
  button { font: inherit; font-size: 13px; padding: 4px 10px; border-radius: 8px; border: 1px solid var(--line); background: none; color: inherit; cursor: pointer; }
  button:hover, button:focus-visible { border-color: var(--accent); }
  details { margin-top: 32px; color: var(--muted); font-size: 13px; }
  table { border-collapse: collapse; width: 100%; margin-top: 8px; }
  td, th { text-align: left; padding: 3px 6px; border-bottom: 1px solid var(--line); }
  .ok { color: #16a34a; } .bad { color: #dc2626; }
  .keys { color: var(--muted); font-size: 12px; margin-top: 24px; }
</style>
</head>
<body>
<main>
  <input id="query" type="search" placeholder="Search every app" autocomplete="off" spellcheck="false" autofocus
         aria-label="Search every app" aria-controls="results">
  <div id="status" role="status"></div>
  <div id="results" role="listbox" aria-label="Results"></div>
  <p class="keys">↑ ↓ choose · Enter open · Ctrl+Enter call · Alt+Enter directions · Esc clear</p>
  <details id="health"><summary>Index health</summary><div id="health-body">Checking…</div></details>
</main>
<script>
"use strict";
const params = new URLSearchParams(location.search);
const token = params.get("token") || "";
const input = document.getElementById("query");
const resultsBox = document.getElementById("results");
const statusLine = document.getElementById("status");
let items = [];          // flat list of {result, element} in display order
let selected = -1;
let sequence = 0;        // the newest search sent; older answers are dropped
let controller = null;
let timer = null;

function api(path, options = {}) {
  options.headers = Object.assign({"X-OpenSpotlight-Token": token}, options.headers || {});
  return fetch(path, options).then(async response => {
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error((body.error && body.error.message) || response.statusText);
    return body;
  });
}

function highlighted(text, highlight) {
  const fragment = document.createDocumentFragment();
  if (!highlight || highlight.text !== text || !highlight.ranges || highlight.ranges.length === 0) {
    fragment.append(text);
    return fragment;
  }
  let at = 0;
  for (const range of highlight.ranges) {   // UTF-16 offsets, as JavaScript counts
    if (range.location > at) fragment.append(text.slice(at, range.location));
    const mark = document.createElement("mark");
    mark.textContent = text.slice(range.location, range.location + range.length);
    fragment.append(mark);
    at = range.location + range.length;
  }
  if (at < text.length) fragment.append(text.slice(at));
  return fragment;
}

function render(outcome) {
  resultsBox.replaceChildren();
  resultsBox.dataset.query = outcome.query;
  items = [];
  selected = -1;
  for (const app of outcome.apps) {
    const section = document.createElement("section");
    section.className = "app";
    section.dataset.app = app.applicationIdentifier;
    const heading = document.createElement("h2");
    heading.textContent = app.displayName;
    const list = document.createElement("ol");
    for (const result of app.results) {
      const li = document.createElement("li");
      li.className = "result";
      li.setAttribute("role", "option");
      li.id = "result-" + items.length;
      li.dataset.id = result.id;
      const text = document.createElement("div");
      text.className = "text";
      const title = document.createElement("div");
      title.className = "title";
      title.append(highlighted(result.title, result.titleHighlight));
      const subtitle = document.createElement("div");
      subtitle.className = "subtitle";
      if (result.snippet) subtitle.append(highlighted(result.snippet.text, result.snippet));
      else subtitle.textContent = result.description || "";
      text.append(title, subtitle);
      li.append(text);
      const labels = {open: "Open", call: "Call", directions: "Directions"};
      for (const action of result.actions) {
        const button = document.createElement("button");
        button.textContent = labels[action] || action;
        button.dataset.action = action;
        button.addEventListener("click", event => { event.stopPropagation(); act(action, result); });
        li.append(button);
      }
      const index = items.length;
      li.addEventListener("mousemove", () => select(index));
      li.addEventListener("dblclick", () => act("open", result));
      list.append(li);
      items.push({result, element: li});
    }
    section.append(heading, list);
    resultsBox.append(section);
  }
  if (items.length > 0) select(0);
  if (!outcome.somethingIndexed) statusLine.textContent = "Nothing is indexed yet.";
  else if (outcome.query && items.length === 0) statusLine.textContent = "No results for “" + outcome.query + "”.";
  else if (outcome.query) statusLine.textContent = items.length + (items.length === 1 ? " result" : " results");
  else statusLine.textContent = items.length ? "Recently used and suggested" : "";
  for (const problem of outcome.problems || []) statusLine.textContent += " · " + problem;
}

function select(index) {
  if (index < 0 || index >= items.length) return;
  if (selected >= 0 && items[selected]) items[selected].element.setAttribute("aria-selected", "false");
  selected = index;
  const element = items[index].element;
  element.setAttribute("aria-selected", "true");
  input.setAttribute("aria-activedescendant", element.id);
  element.scrollIntoView({block: "nearest"});
}

function search() {
  const text = input.value;
  const mine = ++sequence;
  if (controller) controller.abort();
  controller = new AbortController();
  const url = "/api/search?q=" + encodeURIComponent(text);
  api(url, {signal: controller.signal}).then(outcome => {
    if (mine === sequence) render(outcome);
  }).catch(error => {
    if (error.name !== "AbortError" && mine === sequence) statusLine.textContent = "Search failed: " + error.message;
  });
}

function act(action, result) {
  if (!result.actions.includes(action)) {
    statusLine.textContent = result.title + " has no “" + action + "”.";
    return;
  }
  statusLine.textContent = {open: "Opening ", call: "Calling ", directions: "Directions to "}[action] + result.title + "…";
  api("/api/" + action, {method: "POST", headers: {"Content-Type": "application/json"},
                         body: JSON.stringify({id: result.id, query: input.value})})
    .then(() => { statusLine.textContent = {open: "Opened ", call: "Called ", directions: "Directions to "}[action] + result.title + "."; })
    .catch(error => { statusLine.textContent = "Could not " + action + " " + result.title + ": " + error.message; });
}

input.addEventListener("input", () => {
  clearTimeout(timer);
  timer = setTimeout(search, 40);
});
input.addEventListener("keydown", event => {
  if (event.key === "ArrowDown") { event.preventDefault(); select(selected + 1); }
  else if (event.key === "ArrowUp") { event.preventDefault(); select(selected - 1); }
  else if (event.key === "Escape") { input.value = ""; search(); }
  else if (event.key === "Enter" && selected >= 0) {
    event.preventDefault();
    const result = items[selected].result;
    act(event.ctrlKey ? "call" : event.altKey ? "directions" : "open", result);
  }
});

function loadHealth() {
  const body = document.getElementById("health-body");
  api("/api/health").then(report => {
    const table = document.createElement("table");
    table.innerHTML = "<tr><th>App</th><th>Index</th><th>Items</th><th>Status</th></tr>";
    for (const index of report.indexes) {
      const row = table.insertRow();
      row.insertCell().textContent = index.applicationIdentifier;
      row.insertCell().textContent = index.indexName;
      row.insertCell().textContent = index.itemCount ?? "";
      const cell = row.insertCell();
      cell.textContent = index.status + (index.message ? " — " + index.message : "");
      cell.className = index.status === "ok" ? "ok" : "bad";
    }
    body.replaceChildren(report.indexes.length ? table : "No indexes yet.");
    const bad = report.indexes.filter(index => index.status !== "ok").length;
    document.querySelector("#health summary").textContent =
      "Index health: " + (bad ? bad + " need attention (spotlight doctor repairs them)" : "all " + report.indexes.length + " indexes ok");
  }).catch(error => { body.textContent = "Health unavailable: " + error.message; });
}

input.value = params.get("q") || "";
search();
loadHealth();
</script>
</body>
</html>
"""#
}
