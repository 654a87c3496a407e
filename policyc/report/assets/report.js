// The policyc HTML report: renders the JSON data embedded in the page. No network, no
// library; every text from the data is set as text (never parsed as HTML): traces are input
// from outside.
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("policyc-data").textContent);
  var SVG = "http://www.w3.org/2000/svg";
  var rules = DATA.policy.rules, tools = DATA.tools, runs = DATA.runs, agg = DATA.aggregate;
  // an event is [tool, flags, arguments, result], or its tool's number alone for a plain call
  var ACTIONS = {a: "allow", w: "warn", b: "block", s: "stop", n: "not reached"};
  runs.forEach(function (r) {
    r.events = r.events.map(function (e) { return typeof e === "number" ? [e, "c"] : e; });
    // texts (explanations, problems, messages) are numbers into DATA.texts, each text kept once
    r.failed = r.failed.map(function (f) { return [f[0], f[1], DATA.texts[f[2]]]; });
    r.problems = r.problems.map(function (p) { return [p[0], p[1], DATA.texts[p[2]]]; });
    // a decision is [position, action letter, rules, counterfactual (0/1), message?]
    if (r.decisions) r.decisions = r.decisions.map(function (d) {
      return [d[0], ACTIONS[d[1]] || d[1], d[2], d[3] === 1, d.length > 4 ? DATA.texts[d[4]] : ""];
    });
  });

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    (children || []).forEach(function (c) {
      node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    });
    return node;
  }
  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    setAttrs(node, attrs);
    if (text !== undefined) node.textContent = String(text);
    return node;
  }
  function setAttrs(node, attrs) {
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = String(attrs[k]);
      else if (k === "cls") node.setAttribute("class", attrs[k]);
      else node.setAttribute(k, attrs[k]);
    });
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function fmt(x, digits) { return x === null || x === undefined ? "-" : Number(x).toFixed(digits === undefined ? 3 : digits); }
  function ruleName(i) { return i >= 0 && i < rules.length ? rules[i].name : "(rule not in the policy)"; }

  // ------------------------------------------------------------------ header and summary
  document.getElementById("title").textContent = "policyc report: " + DATA.policy.name;
  document.title = "policyc report: " + DATA.policy.name;
  document.getElementById("subtitle").textContent = (DATA.policy.description || "") +
    (DATA.policy.source ? "  (" + DATA.policy.source + ")" : "");
  var cards = document.getElementById("cards");
  [["runs scored", agg.traces], ["malformed records", agg.malformed_records], ["mean compliance", fmt(agg.mean_score)],
   ["FULL", agg.labels.FULL || 0], ["PARTIAL", agg.labels.PARTIAL || 0], ["NONE", agg.labels.NONE || 0],
   ["vacuous passes", agg.vacuous_passes], ["runs with input problems", agg.traces_with_input_problems],
   ["rules", rules.length]].forEach(function (c) {
    cards.appendChild(el("div", {cls: "card"}, [el("b", {text: c[1]}), el("span", {text: c[0]})]));
  });

  // ------------------------------------------------------------------ charts
  (function histogram() {
    var bins = [], i;
    for (i = 0; i < 11; i++) bins.push(0);  // [0, .1), ..., [.9, 1), exactly 1
    runs.forEach(function (r) { bins[r.score >= 1 ? 10 : Math.max(0, Math.floor(r.score * 10))] += 1; });
    var w = 360, h = 180, pad = 28, top = Math.max.apply(null, bins.concat([1]));
    var chart = svg("svg", {width: w, height: h + pad, role: "img", "aria-label": "score distribution", id: "histogram-svg"});
    var bw = (w - pad) / bins.length;
    bins.forEach(function (n, k) {
      var bh = (h - 10) * n / top;
      var bar = svg("rect", {x: pad + k * bw + 2, y: h - bh, width: bw - 4, height: bh, cls: "bar-hist"});
      bar.appendChild(svg("title", {}, (k === 10 ? "score 1" : "score " + (k / 10).toFixed(1) + "–" + ((k + 1) / 10).toFixed(1)) + ": " + n + " run(s)"));
      chart.appendChild(bar);
      chart.appendChild(svg("text", {x: pad + k * bw + bw / 2, y: h + 14, "text-anchor": "middle"}, k === 10 ? "1" : (k / 10).toFixed(1)));
      if (n) chart.appendChild(svg("text", {x: pad + k * bw + bw / 2, y: h - bh - 2, "text-anchor": "middle"}, n));
    });
    chart.appendChild(svg("text", {x: 0, y: 12}, "runs"));
    document.getElementById("histogram").appendChild(chart);
  })();

  (function ruleBars() {
    var rows = agg.rules, rowH = 20, labelW = 230, barW = 360, w = labelW + barW + 140;
    var chart = svg("svg", {width: w, height: rows.length * rowH + 10, role: "img", "aria-label": "compliance per rule", id: "rule-bars-svg"});
    rows.forEach(function (r, i) {
      var y = i * rowH + 4, rate = r.pass_rate === null ? 0 : r.pass_rate, violated = r.checks - r.passed;
      var g = svg("g", {cls: "rule-row", "data-rule": i});
      g.appendChild(svg("text", {x: labelW - 6, y: y + 13, "text-anchor": "end"}, r.name.length > 34 ? r.name.slice(0, 33) + "…" : r.name));
      g.appendChild(svg("rect", {x: labelW, y: y, width: barW * rate, height: rowH - 6, cls: "bar-pass"}));
      g.appendChild(svg("rect", {x: labelW + barW * rate, y: y, width: barW * (1 - rate), height: rowH - 6, cls: "bar-fail"}));
      g.appendChild(svg("text", {x: labelW + barW + 6, y: y + 13}, fmt(r.pass_rate, 2) + " (" + violated + " violated)"));
      g.appendChild(svg("title", {}, r.name + ": passed " + r.passed + " of " + r.checks + " runs, " + r.vacuous + " vacuously"));
      g.addEventListener("click", function () { selectRule(i); });
      chart.appendChild(g);
    });
    document.getElementById("rule-bars").appendChild(chart);
    var body = document.querySelector("#rule-table tbody");
    rows.forEach(function (r, i) {
      var p = rules[i] || {};
      var name = el("td", {}, [el("code", {text: r.name})]);
      if (p.description) name.appendChild(el("div", {cls: "muted", text: p.description}));
      body.appendChild(el("tr", {}, [name, el("td", {text: r.layer || "-"}), el("td", {text: r.weight}),
        el("td", {text: p.severity || "-"}), el("td", {text: p["class"] || "-"}), el("td", {text: fmt(r.pass_rate)}),
        el("td", {text: r.checks - r.passed}), el("td", {text: r.vacuous})]));
    });
  })();

  // ------------------------------------------------------------------ the run list
  var ruleSelect = document.getElementById("filter-rule");
  rules.forEach(function (r, i) { ruleSelect.appendChild(el("option", {value: String(i), text: r.name})); });
  var state = {text: "", label: "", rule: "", problems: false, sort: "index", dir: 1, page: 0, size: 50, selected: -1};
  var shown = [];

  function firstLoss(r) {
    var best = null;
    r.failed.forEach(function (f) { if (f[1] !== null && (best === null || f[1] < best)) best = f[1]; });
    return best;
  }
  function matches(r, i) {
    if (state.label && r.label !== state.label) return false;
    if (state.rule !== "" && !r.failed.some(function (f) { return String(f[0]) === state.rule; })) return false;
    if (state.problems && !r.problems.length) return false;
    if (!state.text) return true;
    var needle = state.text.toLowerCase();
    if (String(r.id).toLowerCase().indexOf(needle) >= 0) return true;
    if (r.failed.some(function (f) { return ruleName(f[0]).toLowerCase().indexOf(needle) >= 0; })) return true;
    return r.events.some(function (e) { return (tools[e[0]] || "").toLowerCase().indexOf(needle) >= 0; });
  }
  function key(r, i) {
    switch (state.sort) {
      case "id": return String(r.id);
      case "score": return r.score;
      case "label": return r.label;
      case "events": return r.events.length;
      case "failed": return r.failed.length;
      case "lost": var l = firstLoss(r); return l === null ? Infinity : l;
      default: return i;
    }
  }
  function refresh() {
    shown = [];
    runs.forEach(function (r, i) { if (matches(r, i)) shown.push(i); });
    shown.sort(function (a, b) {
      var ka = key(runs[a], a), kb = key(runs[b], b);
      return (ka < kb ? -1 : ka > kb ? 1 : a - b) * state.dir;
    });
    var pages = Math.max(1, Math.ceil(shown.length / state.size));
    state.page = Math.min(state.page, pages - 1);
    var body = clear(document.querySelector("#run-table tbody"));
    shown.slice(state.page * state.size, (state.page + 1) * state.size).forEach(function (i) {
      var r = runs[i];
      var names = r.failed.map(function (f) { return ruleName(f[0]); }).join(", ") || "-";
      var lost = firstLoss(r);
      var row = el("tr", {cls: "run" + (i === state.selected ? " selected" : ""), "data-run": i}, [
        el("td", {text: i + 1}), el("td", {cls: "mono", text: r.id}), el("td", {text: fmt(r.score)}),
        el("td", {cls: "label-" + r.label, text: r.label}), el("td", {text: r.events.length}),
        el("td", {text: names}), el("td", {text: lost === null ? "-" : "event #" + lost})]);
      row.addEventListener("click", function () { showRun(i); });
      body.appendChild(row);
    });
    document.getElementById("run-count").textContent = shown.length + " of " + runs.length + " run(s)";
    document.getElementById("page").textContent = "page " + (state.page + 1) + " of " + pages;
    document.getElementById("prev").disabled = state.page === 0;
    document.getElementById("next").disabled = state.page >= pages - 1;
    document.querySelectorAll("#run-table th.sortable").forEach(function (th) {
      th.classList.remove("asc", "desc");
      if (th.getAttribute("data-key") === state.sort) th.classList.add(state.dir > 0 ? "asc" : "desc");
    });
  }
  function selectRule(i) {
    ruleSelect.value = String(i);
    state.rule = String(i); state.page = 0;
    refresh();
    document.getElementById("runs").scrollIntoView();
  }
  document.getElementById("filter-text").addEventListener("input", function (e) { state.text = e.target.value.trim(); state.page = 0; refresh(); });
  document.getElementById("filter-label").addEventListener("change", function (e) { state.label = e.target.value; state.page = 0; refresh(); });
  ruleSelect.addEventListener("change", function (e) { state.rule = e.target.value; state.page = 0; refresh(); });
  document.getElementById("filter-problems").addEventListener("change", function (e) { state.problems = e.target.checked; state.page = 0; refresh(); });
  document.getElementById("prev").addEventListener("click", function () { state.page -= 1; refresh(); });
  document.getElementById("next").addEventListener("click", function () { state.page += 1; refresh(); });
  document.getElementById("page-size").addEventListener("change", function (e) { state.size = Number(e.target.value); state.page = 0; refresh(); });
  document.querySelectorAll("#run-table th.sortable").forEach(function (th) {
    th.addEventListener("click", function () {
      var k = th.getAttribute("data-key");
      state.dir = state.sort === k ? -state.dir : 1;
      state.sort = k;
      refresh();
    });
  });

  // ------------------------------------------------------------------ one run
  function showRun(i) {
    state.selected = i;
    var r = runs[i], box = clear(document.getElementById("run-detail"));
    box.appendChild(el("p", {}, [el("b", {cls: "mono", text: r.id}), " — compliance " + fmt(r.score) + " ",
      el("span", {cls: "label-" + r.label, text: r.label}), r.origin ? el("span", {cls: "muted", text: "  " + r.origin}) : ""]));
    var lostAt = {};  // event number (1-based) -> rules lost once it happened
    r.failed.forEach(function (f) { if (f[1]) (lostAt[f[1]] = lostAt[f[1]] || []).push(ruleName(f[0])); });
    var decisions = {};
    (r.decisions || []).forEach(function (d) { decisions[d[0]] = d; });
    var line = el("div", {cls: "timeline", id: "timeline"});
    r.events.forEach(function (e, k) {
      var flags = e[1], d = decisions[k];
      var cls = "event" + (flags.indexOf("u") >= 0 ? " user" : "") + (flags.charAt(0) === "m" ? " message" : "") +
        (flags.indexOf("e") >= 0 ? " failed-call" : "") + (lostAt[k + 1] ? " lost" : "") +
        (d ? " d-" + d[1].replace(" ", "-") : r.decisions && flags.indexOf("u") < 0 ? " d-allow" : "");
      var chip = el("span", {cls: cls, "data-event": k + 1}, [el("span", {cls: "n", text: "#" + (k + 1)}), tools[e[0]] || "?"]);
      (lostAt[k + 1] || []).forEach(function (name) { chip.appendChild(el("span", {cls: "badge", text: "✕ " + name})); });
      var tip = (tools[e[0]] || "?") + (e.length > 2 ? "(" + e[2] + ")" + (e[3] ? " → " + e[3] : "") : "") +
        (flags.indexOf("u") >= 0 ? "  [the user's]" : "") + (flags.indexOf("e") >= 0 ? "  [failed]" : "") +
        (d ? "\ngate: " + d[1] + (d[2].length ? " (" + d[2].map(ruleName).join(", ") + ")" : "") + (d[3] ? ", after a refusal (counterfactual)" : "") : "");
      chip.setAttribute("title", tip);
      line.appendChild(chip);
    });
    if (!r.events.length) line.appendChild(el("span", {cls: "muted", text: "(no events)"}));
    box.appendChild(line);
    if (r.events.length && r.events[0].length <= 2)
      box.appendChild(el("p", {cls: "muted", text: "Argument and result previews were left out of this run to keep the page small."}));
    var list = el("ul", {cls: "detail-list"});
    r.failed.forEach(function (f) {
      var where = f[1] === null ? "" : f[1] === 0 ? " (from the start)" : " (lost at event #" + f[1] + ")";
      list.appendChild(el("li", {}, [el("code", {text: ruleName(f[0])}), el("span", {cls: "sev-error", text: " violated" + where + ": "}), f[2]]));
    });
    r.vacuous.forEach(function (i) { list.appendChild(el("li", {}, [el("code", {text: ruleName(i)}), el("span", {cls: "muted", text: " held vacuously"})])); });
    r.problems.forEach(function (p) {
      list.appendChild(el("li", {}, [el("span", {cls: "sev-" + p[1], text: p[1] + ": "}), (p[0] ? "call #" + p[0] + ": " : "") + p[2]]));
    });
    if (r.more_problems) list.appendChild(el("li", {cls: "muted", text: "and " + r.more_problems + " more input problem(s)"}));
    if (!list.childNodes.length) list.appendChild(el("li", {cls: "muted", text: "every rule holds, none vacuously"}));
    box.appendChild(list);
    if (r.decisions) {
      var t = el("table", {id: "decisions"}, [el("thead", {}, [el("tr", {}, [el("th", {text: "event"}), el("th", {text: "gate"}), el("th", {text: "rules"}), el("th", {text: "message"})])])]);
      var tb = el("tbody");
      r.decisions.forEach(function (d) {
        tb.appendChild(el("tr", {}, [el("td", {text: "#" + (d[0] + 1) + (d[3] ? " *" : "")}), el("td", {text: d[1]}),
          el("td", {text: d[2].map(ruleName).join(", ")}), el("td", {cls: "mono message", text: d[4]})]));
      });
      if (!tb.childNodes.length) tb.appendChild(el("tr", {}, [el("td", {colspan: 4, cls: "muted", text: "the gate would have let every call run"})]));
      t.appendChild(tb);
      box.appendChild(el("h4", {text: "Gate decisions (replay; * after a refusal: counterfactual)"}));
      box.appendChild(t);
    }
    refresh();
  }

  // ------------------------------------------------------------------ lint, ledger, malformed
  function table(rows, columns) {
    var head = el("tr", {}, columns.map(function (c) { return el("th", {text: c[0]}); }));
    var body = el("tbody");
    rows.forEach(function (row) {
      body.appendChild(el("tr", {}, columns.map(function (c) {
        var v = c[1](row), text = v === null || v === undefined ? "-" : String(v);
        var cell = el("td", {cls: c[2] ? c[2](row) : ""}, [text.length > 400 ? text.slice(0, 399) + "…" : text]);
        if (text.length > 400) cell.setAttribute("title", text.slice(0, 5000));
        return cell;
      })));
    });
    return el("table", {}, [el("thead", {}, [head]), body]);
  }
  function flat(v) { return v !== null && typeof v === "object" ? JSON.stringify(v) : v; }
  function records(rows) {
    if (!rows || !rows.length) return el("p", {cls: "muted", text: "none"});
    var keys = Object.keys(rows[0]);
    return table(rows, keys.map(function (k) { return [k, function (r) { return flat(r[k]); }]; }));
  }
  var lint = document.getElementById("lint-body");
  if (DATA.lint === null) lint.appendChild(el("p", {cls: "muted", text: "Lint was not run (the report was made from an artifact, or with --no-lint)."}));
  else if (!DATA.lint.length) lint.appendChild(el("p", {text: "No finding: the policy is consistent as far as lint can tell."}));
  else lint.appendChild(table(DATA.lint, [["code", function (f) { return f.code + " " + (f.name || ""); }],
    ["severity", function (f) { return f.severity; }, function (f) { return "sev-" + f.severity; }],
    ["message", function (f) { return f.message; }], ["rules", function (f) { return f.rules.join(", "); }],
    ["strength", function (f) { return f.strength; }], ["help", function (f) { return f.help; }]]));
  var ledger = document.getElementById("ledger-body");
  if (!DATA.ledger) ledger.appendChild(el("p", {cls: "muted", text: "No ledger given (policyc report --ledger FILE, the JSON of policyc assure --format json)."}));
  else {
    var L = DATA.ledger;
    ledger.appendChild(el("p", {text: (L.runs || 0) + " run(s), " + (L.tasks || 0) + " task(s), confidence " + L.confidence + "; deployment " + (L.deployment || "-") + ", suite " + (L.suite || "-")}));
    ledger.appendChild(el("h4", {text: "Obligations"}));
    ledger.appendChild(table(L.entries || [], [["obligation", function (e) { var o = e.obligation || {}; return (o.target || "?") + " on " + (o.deployment || "?"); }],
      ["contract", function (e) { var c = (e.obligation || {}).contract; return c ? (c.kind || "") + (c.k ? " k=" + c.k : "") + (c.epsilon ? " ε=" + c.epsilon : "") : null; }],
      ["status", function (e) { return e.status; }], ["reason", function (e) { return e.reason; }], ["detail", function (e) { return e.detail; }]]));
    [["Rules (table 2)", "rules"], ["Union of methods", "union"], ["Overlaps (table 3)", "overlaps"], ["Combined bounds", "combined"]].forEach(function (s) {
      if (L[s[1]] && L[s[1]].length) { ledger.appendChild(el("h4", {text: s[0]})); ledger.appendChild(records(L[s[1]])); }
    });
    if (L.residual) { ledger.appendChild(el("h4", {text: "Residual"})); ledger.appendChild(records([L.residual])); }
  }
  var bad = document.getElementById("malformed-body");
  if (!DATA.malformed.length) bad.appendChild(el("p", {cls: "muted", text: "none"}));
  else bad.appendChild(table(DATA.malformed, [["where", function (m) { return m.file + (m.line ? ":" + m.line : ""); }],
    ["field", function (m) { return m.field; }], ["problem", function (m) { return m.message; }]]));
  if (DATA.limits.runs_without_previews)
    document.getElementById("runs").insertBefore(el("p", {cls: "muted", text: DATA.limits.runs_without_previews +
      " run(s) are shown without argument and result previews, to keep the page small."}), document.getElementById("run-table"));

  refresh();
  document.body.setAttribute("data-ready", "1");
})();
