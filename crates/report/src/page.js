(function () {
  "use strict";
  var body = document.body;
  var box = document.getElementById("errors");
  function fail(what) {
    box.hidden = false;
    box.textContent += what + "\n";
    body.setAttribute("data-errors", "1");
  }
  window.addEventListener("error", function (e) {
    fail("script error: " + e.message + " (line " + e.lineno + ")");
  });

  function fmt(n) { return n.toLocaleString("en-US"); }
  function text(tag, t, cls) {
    var e = document.createElement(tag);
    if (t !== undefined) e.textContent = t;
    if (cls) e.className = cls;
    return e;
  }
  function byHex(a, b) { return (a.length - b.length) || (a < b ? -1 : a > b ? 1 : 0); }

  // ---- the hot-spot table -------------------------------------------------------------
  // rows: [pasn, job, module, csect, start, end, hot, [[cpu, problem, samples, isamples]], by]
  // (SAMPLES are busy samples; CPI = SAMPLES / ISAMPLES, as IBM's report computes it)
  var data = JSON.parse(document.getElementById("data").textContent);
  var rows = data.rows;
  var st = { key: "samples", dir: -1, asid: "", job: "", module: "", state: "", cpu: "", limit: 100 };
  var keys = {
    samples: function (x) { return x.s; },
    isamples: function (x) { return x.u; },
    pct: function (x) { return x.s; },
    cpi: function (x) { return x.cpi === null ? Infinity : x.cpi; },
    pasn: function (x) { return x.r[0]; },
    by: function (x) { return x.r[8]; },
    job: function (x) { return x.r[1]; },
    module: function (x) { return x.r[2]; },
    csect: function (x) { return x.r[3]; },
    range: function (x) { return x.r[4]; }
  };
  var tbody = document.querySelector("#hot tbody");
  var status = document.getElementById("hot-status");

  function selection() {
    var out = [], total = 0;
    rows.forEach(function (r) {
      if ((st.asid && r[0] !== st.asid) || (st.job && r[1] !== st.job) ||
          (st.module && r[2] !== st.module)) return;
      var s = 0, u = 0;
      r[7].forEach(function (p) {
        if ((st.cpu !== "" && p[0] !== st.cpu) || (st.state !== "" && String(p[1]) !== st.state)) return;
        s += p[2]; u += p[3];
      });
      if (s === 0) return;
      out.push({ r: r, s: s, u: u, cpi: u ? s / u : null });
      total += s;
    });
    var k = keys[st.key], dir = st.dir;
    out.sort(function (a, b) {
      var x = k(a), y = k(b), c;
      if (st.key === "range" || st.key === "pasn") c = byHex(x, y);
      else c = x < y ? -1 : x > y ? 1 : 0;
      return c * dir || byHex(a.r[4], b.r[4]);
    });
    return { rows: out, total: total };
  }

  function render() {
    var sel = selection();
    var frag = document.createDocumentFragment();
    var max = 0;
    sel.rows.forEach(function (x) { if (x.s > max) max = x.s; });
    sel.rows.slice(0, st.limit).forEach(function (x) {
      var tr = document.createElement("tr");
      var pct = x.s * 100 / Math.max(sel.total, 1);
      tr.appendChild(text("td", fmt(x.s), "n"));
      tr.appendChild(text("td", fmt(x.u), "n"));
      var td = text("td", pct.toFixed(3), "n");
      var bar = text("span", undefined, "bar");
      bar.style.width = Math.max(1, Math.round(x.s * 60 / Math.max(max, 1))) + "px";
      td.appendChild(bar);
      tr.appendChild(td);
      tr.appendChild(text("td", x.cpi === null ? "-" : x.cpi.toFixed(2), "n"));
      tr.appendChild(text("td", x.r[0], "mono"));
      tr.appendChild(text("td", x.r[8]));
      tr.appendChild(text("td", x.r[1]));
      tr.appendChild(text("td", x.r[2]));
      tr.appendChild(text("td", x.r[3]));
      tr.appendChild(text("td", x.r[4] + "-" + x.r[5], "mono"));
      tr.appendChild(text("td", x.r[6], "hot"));
      frag.appendChild(tr);
    });
    tbody.textContent = "";
    tbody.appendChild(frag);
    var shown = Math.min(st.limit, sel.rows.length);
    status.textContent = fmt(sel.rows.length) + " rows, " + fmt(sel.total) + " samples selected (" +
      (sel.total * 100 / Math.max(data.total, 1)).toFixed(1) + "% of all); showing " + fmt(shown) +
      (data.cut ? "; " + fmt(data.cut) + " smaller rows (" + fmt(data.cutSamples) +
        " samples) are in the text and JSON reports only" : "");
    document.querySelectorAll("#hot th.sortable").forEach(function (th) {
      th.classList.remove("asc", "desc");
      if (th.getAttribute("data-key") === st.key) th.classList.add(st.dir > 0 ? "asc" : "desc");
    });
    return sel;
  }

  function options(id, values, label) {
    var s = document.getElementById(id);
    s.appendChild(new Option("all", ""));
    values.forEach(function (v) { s.appendChild(new Option(label ? label(v) : v, v)); });
    return s;
  }
  function distinct(f) {
    var seen = {}, out = [];
    rows.forEach(function (r) { f(r).forEach(function (v) { if (!seen[v]) { seen[v] = 1; out.push(v); } }); });
    return out;
  }
  var filters = {
    asid: options("f-asid", distinct(function (r) { return [r[0]]; }).sort(byHex)),
    job: options("f-job", distinct(function (r) { return [r[1]]; }).sort()),
    module: options("f-module", distinct(function (r) { return [r[2]]; }).sort()),
    cpu: options("f-cpu", distinct(function (r) { return r[7].map(function (p) { return p[0]; }); }).sort(byHex),
      function (c) { return "CPU " + c; }),
    state: document.getElementById("f-state"),
    limit: document.getElementById("f-limit")
  };
  Object.keys(filters).forEach(function (k) {
    filters[k].addEventListener("change", function () {
      st[k] = k === "limit" ? Number(filters[k].value) : filters[k].value;
      render();
    });
  });
  document.getElementById("f-reset").addEventListener("click", function () {
    ["asid", "job", "module", "cpu", "state"].forEach(function (k) { filters[k].value = ""; st[k] = ""; });
    render();
  });
  document.querySelectorAll("#hot th.sortable").forEach(function (th) {
    th.addEventListener("click", function () {
      var k = th.getAttribute("data-key");
      if (st.key === k) st.dir = -st.dir;
      else { st.key = k; st.dir = th.classList.contains("n") ? -1 : 1; }
      render();
    });
  });
  render();

  // ---- the timeline: by module or by job ---------------------------------------------
  document.querySelectorAll(".toggle button").forEach(function (b) {
    b.addEventListener("click", function () {
      var kind = b.getAttribute("data-kind");
      document.querySelectorAll(".toggle button").forEach(function (o) {
        o.classList.toggle("on", o === b);
      });
      document.querySelectorAll(".tl").forEach(function (d) {
        d.hidden = !d.classList.contains("tl-" + kind);
      });
    });
  });

  // ---- the flame graph: inferno's SVG in its own document ------------------------------
  var frame = document.getElementById("flame-frame");
  var flameDone = false;
  function flameLoaded() {
    var d = frame.contentDocument;
    if (flameDone || !d || !d.getElementById("frames")) return;
    flameDone = true;
    body.setAttribute("data-flame-frames", String(d.querySelectorAll("#frames > g").length));
    var errs = frame.contentWindow.flameErrors || [];
    errs.forEach(function (e) { fail("flame graph: " + e); });
    if (location.hash === "#selftest") selftest();
  }
  if (frame) {
    frame.addEventListener("load", flameLoaded);
    flameLoaded();
  } else if (location.hash === "#selftest") {
    selftest();
  }

  // ---- #selftest: what a person would click, checked (the browser test) ----------------
  function selftest() {
    var done = [];
    function check(ok, what) { if (!ok) throw new Error("selftest: " + what); done.push(what); }
    try {
      var th = document.querySelector("#hot th[data-key='samples']");
      th.click();
      var asc = selection().rows;
      check(st.dir === 1 && (asc.length < 2 || asc[0].s <= asc[asc.length - 1].s), "sort ascending");
      th.click();
      var all = render().total;
      filters.state.value = "0"; filters.state.dispatchEvent(new Event("change"));
      var sup = render().total;
      filters.state.value = "1"; filters.state.dispatchEvent(new Event("change"));
      var prb = render().total;
      check(sup + prb === all && all === data.filtered, "state filter splits the samples");
      document.getElementById("f-reset").click();
      var job = document.querySelector(".toggle button[data-kind='job']");
      if (job) {
        job.click();
        check(!document.querySelector(".tl-job").hidden && document.querySelector(".tl-module").hidden,
          "timeline by job");
      }
      if (frame) {
        var d = frame.contentDocument, w = frame.contentWindow;
        var g = null;
        d.querySelectorAll("#frames > g").forEach(function (x) {
          var t = x.querySelector("title");
          if (!g && t && /^problem/.test(t.textContent)) g = x;
        });
        if (!g) g = d.querySelectorAll("#frames > g")[1];
        g.dispatchEvent(new w.MouseEvent("click", { bubbles: true, cancelable: true }));
        check(!d.getElementById("unzoom").classList.contains("hide"), "flame graph zooms on a click");
        (w.flameErrors || []).forEach(function (e) { fail("flame graph: " + e); });
      }
      body.setAttribute("data-selftest", done.join(", "));
    } catch (e) {
      fail(String(e));
    }
  }

  body.setAttribute("data-ready", "1");
})();
