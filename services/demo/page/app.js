// The demo page: polls /api/state every second and draws it. Charts: uPlot; diagram: mermaid.
"use strict";

const $ = (id) => document.getElementById(id);
const fmt = (n) => Number(n).toLocaleString("en-US");
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

// The charts, exposed for the page's browser test (their data grows with every sample).
window.demoCharts = {};

function chart(id, series, colors) {
  const el = $(id);
  const opts = {
    width: el.clientWidth, height: 220, legend: { live: false },
    scales: { x: { time: true } },
    axes: [{ stroke: "#6b7385", grid: { stroke: "#eef0f3" } }, { stroke: "#6b7385", grid: { stroke: "#eef0f3" }, size: 60 }],
    series: [{}, ...series.map((label, i) => ({ label, stroke: colors[i], width: 2, fill: colors[i] + "18" }))],
  };
  const plot = new uPlot(opts, [[], ...series.map(() => [])], el);
  window.demoCharts[id] = plot;
  new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: 220 })).observe(el);
  return plot;
}
const throughput = chart("throughput", ["generated", "processed"], ["#94a3b8", "#2563eb"]);
const lag = chart("lag", ["lag"], ["#d97706"]);

function term(name, label, value, cls = "") {
  return `<div class="term ${cls}" data-term="${name}"><b>${fmt(value)}</b><span>${label}</span></div>`;
}

function renderAccounts(a) {
  if (!a) return;
  const sum = a.inResults + a.droppedLate + a.deadLettered + a.notYetProcessed;
  const ok = sum === a.generated;
  $("equation").innerHTML =
    term("generated", "generated", a.generated, "total") + '<span class="op">=</span>' +
    term("inResults", "processed into results", a.inResults) + '<span class="op">+</span>' +
    term("droppedLate", "dropped late (past grace)", a.droppedLate, "late") + '<span class="op">+</span>' +
    term("deadLettered", "dead-lettered", a.deadLettered, "dead") + '<span class="op">+</span>' +
    term("notYetProcessed", "not yet processed", a.notYetProcessed) +
    `<span class="check ${ok ? "ok" : "bad"}" id="equation-check">${ok ? "✓ adds up" : "✗ off by " + fmt(a.generated - sum)}</span>`;
  $("equation-note").textContent =
    `In Kafka: ${fmt(a.inKafka)} payment records${a.generated > a.inKafka ? ` (${fmt(a.generated - a.inKafka)} still being sent)` : ""}; lag ${fmt(a.lag)}. ` +
    "Processed into results: counted in the cards' spend profiles or as spike alerts in their risk state (interactive queries). " +
    "Dropped late: past their windows' end + grace, so the velocity windows drop them (the per-card rules still score them) and write them to a late-records topic; " +
    "late and dead-lettered are counted as committed to their topics.";
}

function renderAlerts(feed) {
  const r = feed.byRule;
  $("alert-counts").textContent = `${fmt(feed.total)} committed: ${fmt(r.velocity)} velocity, ${fmt(r["spend-spike"])} spike, ${fmt(r["foreign-after-charge"])} foreign`;
  $("alerts").innerHTML = feed.recent.map((a) =>
    `<li><span class="rule ${a.rule}">${a.rule}</span><a class="card-link" data-card="${esc(a.cardId)}">${esc(a.cardId)}</a>` +
    ` <small>${new Date(a.at).toISOString().slice(0, 16).replace("T", " ")}</small><span class="why">${esc(a.reason)}</span></li>`).join("") || "<li>none yet</li>";
}

function renderTraffic(s, state) {
  const rows = [
    ["event time", new Date(state.eventTimeMs).toISOString().slice(0, 19).replace("T", " ") + ` (×${state.speed})`],
    ["payments sent", fmt(s.payments) + ` (target ${fmt(state.ratePerSecond)}/s)`],
    ["out of order, within grace", fmt(s.outOfOrder)],
    ["late, past grace", fmt(s.late)],
    ["undecodable", fmt(s.undecodable)],
    ["bursts / spikes / foreign charges", `${fmt(s.bursts)} / ${fmt(s.spikes)} / ${fmt(s.foreignCharges)}`],
    ["CDC customers: updates / deletes", `${fmt(s.customerUpdates)} / ${fmt(s.customerDeletes)}`],
    ["CDC cards: issued / deleted", `${fmt(s.cardsIssued)} / ${fmt(s.cardDeletes)}`],
  ];
  $("traffic").innerHTML = rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join("");
}

function renderDeadLetters(d, a) {
  $("dlq-topic").textContent = `${a ? fmt(a.deadLettered) : 0} to ${d.topic}`;
  $("dead-letters").innerHTML = d.recent.map((x) => `<li>partition ${x.partition}, offset ${x.offset}: ${esc(x.error)}</li>`).join("") || "<li>none yet</li>";
}

let topologyDrawn = false;
async function renderTopology(text) {
  if (topologyDrawn) return;
  topologyDrawn = true;
  mermaid.initialize({ startOnLoad: false, theme: "neutral", flowchart: { useMaxWidth: true } });
  const { svg } = await mermaid.render("topology-svg", text);
  $("topology").innerHTML = svg;
}

let suggested = false;
function renderSuggestions(cards) {
  if (suggested && $("suggestions").children.length >= 3) return;
  suggested = cards.length > 3;
  $("suggestions").innerHTML = "try: " + cards.map((c) => `<a class="card-link" data-card="${esc(c)}">${esc(c)}</a>`).join("");
}

async function lookUp(cardId) {
  $("card-id").value = cardId;
  const response = await fetch(`/cards/${encodeURIComponent(cardId)}`);
  const body = await response.json();
  if (response.status !== 200) {
    $("card").innerHTML = `<p>${esc(body.error ?? response.statusText)}</p>`;
    return;
  }
  const { card, risk, profile } = body;
  const rows = [
    ["customer", card ? `${esc(card.customerId)}${card.customer ? ` (${esc(card.customer.name)}, ${card.customer.tier})` : " (customer deleted)"}` : "card deleted"],
    ["home country", card ? esc(card.homeCountry) : "–"],
    ["risk", `<span class="level ${risk.level}">${risk.level}</span> score ${risk.score}, ${risk.alerts} alerts`],
    ["alerts by rule", Object.entries(risk.byRule).map(([r, n]) => `${r} ${n}`).join(", ")],
    ["spend profile", profile ? `${fmt(profile.payments)} payments, average ${(profile.totalCents / profile.payments / 100).toFixed(2)}` : "–"],
    ["last alert", risk.lastAlert ? esc(risk.lastAlert.reason) : "–"],
  ];
  $("card").innerHTML = `<table data-card="${esc(body.cardId)}">${rows.map(([k, v]) => `<tr><td>${k}</td><td>${v}</td></tr>`).join("")}</table>`;
}
$("lookup").addEventListener("submit", (e) => { e.preventDefault(); void lookUp($("card-id").value.trim()); });
document.addEventListener("click", (e) => {
  const link = e.target.closest("a.card-link");
  if (link) void lookUp(link.dataset.card);
});

async function poll() {
  try {
    const state = await (await fetch("/api/state", { cache: "no-store" })).json();
    $("status").textContent = `${state.phase} · ${state.applicationId} · exactly-once`;
    renderAccounts(state.accounts);
    const s = state.series;
    throughput.setData([s.t, s.generated, s.processed]);
    lag.setData([s.t, s.lag]);
    renderAlerts(state.alerts);
    renderTraffic(state.traffic, state);
    renderDeadLetters(state.deadLetters, state.accounts);
    renderSuggestions(state.sampleCards);
    await renderTopology(state.mermaid);
  } catch (error) {
    $("status").textContent = `no answer from the demo (${error.message})`;
  }
  setTimeout(poll, 1000);
}
void poll();
