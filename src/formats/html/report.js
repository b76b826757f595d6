// The script of the HTML pass timing report. It reads the profile from the
// page's JSON data block (id passtiming-data) and builds every element
// with createElement and textContent: pass names come from other people's
// compilers and must only ever be text. Embedded into the page at build time.
(function () {
  'use strict';

  // Record fields, in the order the C++ renderer writes them.
  const SEQ = 0, PARENT = 1, THREAD = 2, DEPTH = 3, NAME = 4, KERNEL = 5,
        START = 6, INCL = 7, SELF = 8, FLAGS = 9;
  const FAILED = 1;
  const ROW_PX = 20;

  const data = JSON.parse(document.getElementById('passtiming-data').textContent);
  const app = document.getElementById('app');

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = String(text);
    return node;
  }

  /// A duration for people: the unit that keeps 3 or 4 significant digits.
  function duration(ns) {
    if (ns < 1e3) return ns + ' ns';
    if (ns < 1e6) return (ns / 1e3).toFixed(2) + ' \u00b5s';
    if (ns < 1e9) return (ns / 1e6).toFixed(3) + ' ms';
    return (ns / 1e9).toFixed(3) + ' s';
  }
  function ms(ns) { return (ns / 1e6).toFixed(3); }
  function percent(part, whole) { return whole > 0 ? (100 * part / whole).toFixed(1) + '%' : '\u2013'; }

  /// A stable warm colour per pass name, so a pass looks the same everywhere.
  function color(name) {
    let h = 2166136261;
    for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
    h >>>= 0;
    const hue = 8 + (h % 44);
    const light = 58 + ((h >>> 8) % 14);
    return 'hsl(' + hue + ', 82%, ' + light + '%)';
  }

  // ---- tooltip -----------------------------------------------------------
  const tooltip = el('div');
  tooltip.id = 'tooltip';
  tooltip.setAttribute('role', 'tooltip');
  document.body.appendChild(tooltip);

  function showTooltip(event, title, rows) {
    tooltip.replaceChildren(el('div', 'tt-name', title));
    for (const [label, value] of rows) {
      const row = el('div', 'tt-row');
      row.append(el('span', '', label), el('span', '', value));
      tooltip.appendChild(row);
    }
    tooltip.style.display = 'block';
    moveTooltip(event);
  }
  function moveTooltip(event) {
    const pad = 14;
    const w = tooltip.offsetWidth, h = tooltip.offsetHeight;
    let x = event.clientX + pad, y = event.clientY + pad;
    if (x + w > window.innerWidth) x = Math.max(0, event.clientX - w - pad);
    if (y + h > window.innerHeight) y = Math.max(0, event.clientY - h - pad);
    tooltip.style.left = x + 'px';
    tooltip.style.top = y + 'px';
  }
  function hideTooltip() { tooltip.style.display = 'none'; }

  // ---- metrics -----------------------------------------------------------
  /// What the profile recorded besides wall time. Absent unless a metric
  /// was asked for; then each section with values has "metrics", one array
  /// per record (same order as "records") of the numbers named by "fields",
  /// -1 for a value not measured.
  const metricInfo = data.metrics || {recorded: [], unavailable: {}, fields: []};
  const recorded = new Set(metricInfo.recorded);
  const FIELD = {};
  metricInfo.fields.forEach((f, i) => { FIELD[f] = i; });
  const IR_CHANGE_KNOWN = 1, IR_CHANGED = 2, IR_PRESERVED_KNOWN = 4, IR_PRESERVED_ALL = 8;
  const metricsOf = new WeakMap();  // record -> its metric numbers
  for (const s of data.sections) {
    if (s.metrics) s.records.forEach((r, i) => metricsOf.set(r, s.metrics[i]));
  }
  /// A record's metric number, or undefined when not measured.
  function mv(r, field) {
    const m = metricsOf.get(r);
    const v = m ? m[FIELD[field]] : undefined;
    return v === undefined || v < 0 ? undefined : v;
  }
  /// Both numbers when both were measured, else undefined.
  function delta(r, from, to) {
    const a = mv(r, from), b = mv(r, to);
    return a === undefined || b === undefined ? undefined : b - a;
  }
  const NONE = '\u2013';
  function mib(bytes) { return (bytes / 1048576).toFixed(2); }
  function signedMib(bytes) { return (bytes < 0 ? '\u2212' : '+') + mib(Math.abs(bytes)); }
  function signed(n) { return (n < 0 ? '\u2212' : '+') + Math.abs(n); }
  function grouped(n) { return n.toLocaleString('en-US'); }
  function irChange(r) {
    const flags = mv(r, 'ir_flags');
    if (!flags || !(flags & IR_CHANGE_KNOWN)) return undefined;
    return (flags & IR_CHANGED) !== 0;
  }

  const sections = data.sections;
  function sectionTotal(s) {
    let total = 0;
    for (const r of s.records) if (r[DEPTH] === 0) total += r[INCL];
    return total;
  }
  const header = el('header');
  header.appendChild(el('h1', '', data.title));
  const meta = el('p', 'meta');
  const m = data.metadata;
  for (const part of [m.tool, m.host, m.start_time, m.command]) {
    if (part) meta.appendChild(el('span', '', part));
  }
  if (meta.childNodes.length) header.appendChild(meta);
  const summary = el('p', 'summary');
  let allRecords = 0, allTotal = 0;
  for (const s of sections) { allRecords += s.records.length; allTotal += sectionTotal(s); }
  summary.append(el('b', '', sections.length), ' section' + (sections.length === 1 ? '' : 's') + ', ',
                 el('b', '', allRecords), ' pass executions, ',
                 el('b', '', duration(allTotal)), ' in top-level passes');
  header.appendChild(summary);
  if (recorded.size) {
    summary.append(' \u00b7 metrics: ' + metricInfo.recorded.join(', '));
  }
  const unavailable = Object.entries(metricInfo.unavailable);
  if (unavailable.length) {
    const note = el('p', 'unavailable');
    for (const [name, reason] of unavailable) {
      note.appendChild(el('span', '', name + ': unavailable \u2014 ' + reason));
    }
    header.appendChild(note);
  }

  /// What the flame chart's bars can be coloured by: the pass name, or one
  /// recorded metric on a sequential scale over every record of the page.
  /// The bars' extent stays wall time.
  const COLOUR_MODES = [
    {key: 'name', label: 'pass name'},
    {key: 'cpu', label: 'CPU share of wall', note: 'CPU time \u00f7 wall time, inclusive',
     value: (r) => {
       const cpu = mv(r, 'cpu_ns');
       return cpu === undefined || r[INCL] <= 0 ? undefined : cpu / r[INCL];
     },
     floor: 0, ceiling: 1, format: (v) => (100 * v).toFixed(0) + '%'},
    {key: 'rss', label: 'RSS growth', note: 'resident set at the end \u2212 at the start',
     value: (r) => delta(r, 'rss_start_bytes', 'rss_end_bytes'),
     format: (v) => signedMib(v) + ' MiB'},
    {key: 'ir', label: 'IR change', note: 'IR size after \u2212 before',
     value: (r) => delta(r, 'ir_before', 'ir_after'), format: signed},
    {key: 'instructions', label: 'instructions', note: 'retired instructions, self',
     value: (r) => mv(r, 'instructions_self'), format: grouped},
  ].filter((mode) => mode.key === 'name' || recorded.has(mode.key));
  let colourMode = COLOUR_MODES[0];

  /// The scale's colours, light to dark.
  const RAMP = [[253, 237, 176], [250, 178, 95], [232, 107, 63], [187, 48, 68], [110, 25, 84]];
  function rampColour(t) {
    const x = Math.min(1, Math.max(0, t)) * (RAMP.length - 1);
    const i = Math.min(RAMP.length - 2, Math.floor(x)), f = x - i;
    const c = RAMP[i].map((v, k) => Math.round(v + (RAMP[i + 1][k] - v) * f));
    return 'rgb(' + c.join(', ') + ')';
  }
  /// The mode's domain over every record of the page.
  function domainOf(mode) {
    let lo = Infinity, hi = -Infinity;
    for (const s of sections) {
      if (!s.metrics) continue;
      for (const r of s.records) {
        const v = mode.value(r);
        if (v === undefined) continue;
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
    if (lo > hi) return undefined;
    if (mode.floor !== undefined) lo = Math.min(lo, mode.floor);
    if (mode.ceiling !== undefined) hi = Math.max(hi, mode.ceiling);
    return {lo: lo, hi: hi};
  }
  /// Where a value sits on the current mode's scale, 0 to 1.
  function scaled(v) {
    const d = colourMode.domain;
    return d.hi > d.lo ? (v - d.lo) / (d.hi - d.lo) : 0.5;
  }

  const legend = el('div', 'legend');
  legend.hidden = true;
  if (COLOUR_MODES.length > 1) {
    const control = el('div', 'colour-by');
    const label = el('label', '', 'Colour by');
    label.htmlFor = 'colour-by';
    const select = el('select');
    select.id = 'colour-by';
    for (const mode of COLOUR_MODES) {
      const option = el('option', '', mode.label + (mode.key === 'name' ? ' (default)' : ''));
      option.value = mode.key;
      select.appendChild(option);
    }
    control.append(label, select, legend);
    header.appendChild(control);
  }
  /// Shows the current mode's scale: its low end, the ramp, its high end,
  /// and the colour of a record without the value.
  function drawLegend() {
    const d = colourMode.domain;
    legend.hidden = !d;
    if (!d) { legend.replaceChildren(); return; }
    const ramp = el('span', 'legend-ramp');
    ramp.setAttribute('aria-hidden', 'true');
    const missing = el('span', 'legend-missing');
    missing.setAttribute('aria-hidden', 'true');
    legend.replaceChildren(el('span', 'legend-note', colourMode.note + ':'),
                           el('span', 'legend-lo', colourMode.format(d.lo)), ramp,
                           el('span', 'legend-hi', colourMode.format(d.hi)), missing,
                           el('span', '', 'not measured'));
  }
  app.appendChild(header);

  // ---- flame chart -------------------------------------------------------
  /// Bars narrower than this are not drawn one by one. Adjacent narrow
  /// siblings become one grey "N passes" bar that stands for them and all
  /// their descendants; clicking it zooms in. An element per record would
  /// cost a browser minutes on a large compile (sqlite3.c runs 290,000
  /// passes), and a bar under a pixel shows nothing anyway.
  const MIN_BAR_PX = 1;

  /// Lays out one section: per thread a lane of bars. A bar's extent is in
  /// packed nanoseconds: bars sit in start order with idle time between
  /// passes removed, children inside their parent from its left edge, so
  /// top-level bars fill the lane and children never overhang their parent.
  /// The section's scale is the longest thread's top-level time. Each bar
  /// knows its parent bar and how many records its subtree holds. A record
  /// whose parent ran on another thread (a pipeline MLIR forked onto a
  /// worker) is a root of its own thread's lane, and a bar's `depth` counts
  /// from its lane's roots.
  function layoutSection(s) {
    const bySeq = new Map();    // sequence -> bar
    const lanes = new Map();
    for (const r of s.records) {  // records arrive in sequence (start) order
      let lane = lanes.get(r[THREAD]);
      if (!lane) lanes.set(r[THREAD], lane = {thread: r[THREAD], total: 0, depth: 0, bars: []});
      const above = r[PARENT] >= 0 ? bySeq.get(r[PARENT]) : undefined;
      const parent = above && above.r[THREAD] === r[THREAD] ? above : undefined;
      let left, room;
      if (parent) {
        left = parent.cursor;
        room = parent.left + parent.width - left;
      } else {
        left = lane.total;
        room = Infinity;
      }
      const bar = {r: r, parent: parent, left: left, width: Math.max(0, Math.min(r[INCL], room)),
                   cursor: left, count: 1, depth: parent ? parent.depth + 1 : 0};
      if (parent) parent.cursor = left + bar.width;
      else lane.total += bar.width;
      bySeq.set(r[SEQ], bar);
      lane.depth = Math.max(lane.depth, bar.depth);
      lane.bars.push(bar);
    }
    let scale = 0;
    for (const lane of lanes.values()) {
      scale = Math.max(scale, lane.total);
      for (let i = lane.bars.length - 1; i >= 0; i--) {
        const bar = lane.bars[i];
        if (bar.parent) bar.parent.count += bar.count;
      }
    }
    return {lanes: [...lanes.values()].sort((a, b) => a.thread - b.thread), scale: scale};
  }

  /// Whether a bar overlaps the view [from, to]; a bar of no width counts
  /// when it sits on the view's edge.
  function inView(bar, view) {
    const right = bar.left + bar.width;
    return bar.width > 0 ? right > view.from && bar.left < view.to
                         : bar.left >= view.from && bar.left <= view.to;
  }

  /// What one lane draws for a view: every bar in view at least MIN_BAR_PX
  /// wide, clipped to the view, and for each run of narrower siblings one
  /// merged bar. Descendants of a narrow bar are inside it and not drawn.
  function visibleBars(lane, view, nsPerPx) {
    const drawn = new Set();
    const pending = new Map();  // parent bar (or the lane) -> open merged run
    const out = [];
    const close = (key) => {
      const run = pending.get(key);
      if (run) { out.push(run); pending.delete(key); }
    };
    for (const bar of lane.bars) {
      if (bar.parent && !drawn.has(bar.parent)) continue;
      if (!inView(bar, view)) continue;
      const left = Math.max(bar.left, view.from);
      const right = Math.min(bar.left + bar.width, view.to);
      const key = bar.parent || lane;
      if (right - left >= MIN_BAR_PX * nsPerPx) {
        close(key);
        drawn.add(bar);
        out.push({bar: bar, left: left, right: right, count: 1});
        continue;
      }
      const run = pending.get(key);
      if (run) {
        run.right = right;
        run.count += bar.count;
        run.members++;
        run.incl += bar.r[INCL];
      } else {
        pending.set(key, {merged: true, depth: bar.depth, parent: bar.parent, left: left, right: right,
                          count: bar.count, members: 1, incl: bar.r[INCL]});
      }
    }
    for (const key of [...pending.keys()]) close(key);
    return out;
  }

  /// A time axis with ticks at round values (1, 2 or 5 times a power of
  /// ten), about five of them.
  function axis(scale) {
    const node = el('div', 'axis');
    if (scale <= 0) return node;
    const raw = scale / 5, power = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((f) => f * power).find((s) => s >= raw);
    for (let t = 0; t <= scale * (1 + 1e-9); t += step) {
      const last = t + step > scale * (1 + 1e-9) && scale - t < step * 0.35;
      const label = duration(Math.round(t)).replace(/(\.\d*?)0+ /, '$1 ').replace(/\. /, ' ');
      const tick = el('span', 'tick' + (t === 0 ? ' first' : last ? ' last' : ''), label);
      tick.style.left = (100 * t / scale) + '%';
      node.appendChild(tick);
    }
    return node;
  }

  /// A duration with its share of the section, for tooltips.
  function withShare(ns, total) { return duration(ns) + '  (' + percent(ns, total) + ')'; }

  /// Tooltip rows for a drawn bar or a merged run.
  function barRows(s, item, total) {
    if (item.merged) {
      return ['passes, too narrow to draw', [
        ['executions', item.count + (item.count > item.members ? '  (' + item.members + ' at this depth)' : '')],
        ['inclusive', withShare(item.incl, total)],
        ['depth', item.depth], ['', 'click to zoom in']]];
    }
    const r = item.bar.r;
    const rows = [['kernel', s.names[r[KERNEL]] || '\u2013'],
                  ['inclusive', withShare(r[INCL], total)],
                  ['self', withShare(r[SELF], total)],
                  ['depth', r[DEPTH]], ['sequence', r[SEQ]]];
    if (item.bar.count > 1) rows.push(['passes inside', item.bar.count - 1]);
    if (r[FLAGS] & FAILED) rows.push(['status', 'failed']);
    rows.push(...metricRows(r));
    return [s.names[r[NAME]], rows];
  }

  /// Tooltip rows of a record's recorded metrics.
  function metricRows(r) {
    const rows = [];
    const or = (v, f) => (v === undefined ? NONE : f(v));
    if (recorded.has('cpu')) {
      const cpu = mv(r, 'cpu_ns'), self = mv(r, 'cpu_self_ns');
      rows.push(['CPU', or(cpu, duration) + '  (self ' + or(self, duration) + ')']);
      rows.push(['CPU / wall', cpu === undefined ? NONE : percent(cpu, r[INCL])]);
    }
    if (recorded.has('rss')) {
      const start = mv(r, 'rss_start_bytes'), end = mv(r, 'rss_end_bytes');
      const growth = delta(r, 'rss_start_bytes', 'rss_end_bytes');
      rows.push(['RSS', or(start, mib) + ' \u2192 ' + or(end, mib) + ' MiB  (' + or(growth, signedMib) + ')']);
      rows.push(['RSS peak', or(mv(r, 'rss_peak_bytes'), mib) + ' MiB']);
    }
    if (recorded.has('ir')) {
      const changed = irChange(r);
      rows.push(['IR size', or(mv(r, 'ir_before'), String) + ' \u2192 ' + or(mv(r, 'ir_after'), String) +
                 (changed === undefined ? '' : changed ? '  (changed)' : '  (unchanged)')]);
      const flags = mv(r, 'ir_flags') || 0;
      if (flags & IR_PRESERVED_KNOWN) {
        rows.push(['analyses', flags & IR_PRESERVED_ALL ? 'all preserved' : 'not all preserved']);
      }
    }
    if (recorded.has('instructions')) {
      rows.push(['instructions', or(mv(r, 'instructions'), grouped) + '  (self ' +
                 or(mv(r, 'instructions_self'), grouped) + ')']);
    }
    return rows;
  }

  /// Per lane element: how many records its current view holds from the
  /// view's depth down (read by the self-test).
  const expectedBarsOf = new WeakMap();

  /// One thread's lane: drawn for the whole section, or zoomed into a bar
  /// (click a bar; the button or Escape zooms out). It draws again when
  /// the window's width changes, since what is narrow depends on it.
  function flameLane(s, index, total, lane, scale) {
    const node = el('div', 'lane');
    node.dataset.section = index;
    node.dataset.thread = lane.thread;
    const head = el('div', 'lane-label');
    let label = 'thread ' + lane.thread;
    const key = s.threads[lane.thread];
    if (key !== undefined && key !== lane.thread) label += ' (tid ' + key + ')';
    const where = el('span', 'zoom-where');
    const reset = el('button', 'zoom-reset', 'Show whole lane');
    reset.type = 'button';
    head.append(label, where, reset);
    const body = el('div', 'lane-body');
    body.style.height = ((Math.min(lane.depth, 200) + 1) * ROW_PX) + 'px';
    const axisSlot = el('div');
    node.append(head, body, axisSlot);
    const whole = {from: 0, to: scale, depth: 0, title: ''};
    let view = whole, drawnWidth = 0;
    const items = new WeakMap();  // element -> what it draws

    function draw() {
      drawnWidth = body.clientWidth;
      const span = Math.max(1, view.to - view.from);
      const nsPerPx = span / Math.max(1, drawnWidth);
      const list = visibleBars(lane, view, nsPerPx);
      const frac = 100 / span;
      const nodes = [];
      let levelNs = 0;
      for (const item of list) {
        const depth = item.merged ? item.depth : item.bar.depth;
        const failed = !item.merged && (item.bar.r[FLAGS] & FAILED);
        const bar = el('div', 'bar' + (item.merged ? ' merged' : '') + (failed ? ' failed' : ''));
        const parent = item.merged ? item.parent : item.bar.parent;
        bar.dataset.parent = parent ? parent.r[SEQ] : -1;
        bar.dataset.depth = depth;
        bar.dataset.count = item.count;
        if (item.merged) bar.dataset.seq = 'm' + nodes.length;
        else bar.dataset.seq = item.bar.r[SEQ];
        bar.style.left = ((item.left - view.from) * frac) + '%';
        bar.style.width = ((item.right - item.left) * frac) + '%';
        bar.style.top = (Math.min(depth, 200) * ROW_PX) + 'px';
        const name = item.merged ? item.count + ' passes' : s.names[item.bar.r[NAME]];
        if (!item.merged && colourMode.value) {
          const v = colourMode.value(item.bar.r);
          if (v === undefined) {
            bar.classList.add('unmeasured');
          } else {
            const t = scaled(v);
            bar.style.background = rampColour(t);
            if (t > 0.55) bar.classList.add('dark');
          }
        } else if (!item.merged) {
          bar.style.background = color(name);
        }
        bar.appendChild(el('span', 'bar-label', name));
        if (depth === view.depth) levelNs += item.right - item.left;
        items.set(bar, item);
        nodes.push(bar);
      }
      body.replaceChildren(...nodes);
      axisSlot.replaceChildren(axis(view.to - view.from));
      node.dataset.viewNs = view.to - view.from;
      node.dataset.levelNs = levelNs;
      node.dataset.zoomDepth = view.depth;
      node.classList.toggle('zoomed', view !== whole);
      where.textContent = view === whole ? '' : ' \u00b7 zoomed into ' + view.title;
    }
    function zoomTo(item) {
      if (item.merged) {
        view = {from: item.left, to: item.right, depth: item.depth,
                title: item.count + ' passes at depth ' + item.depth + ', ' + duration(item.incl)};
      } else {
        const r = item.bar.r;
        view = {from: item.bar.left, to: item.bar.left + item.bar.width, depth: item.bar.depth,
                title: s.names[r[NAME]] + ' #' + r[SEQ] + ', ' + duration(r[INCL])};
      }
      hideTooltip();
      draw();
    }
    function zoomOut() {
      if (view === whole) return;
      view = whole;
      hideTooltip();
      draw();
    }
    body.addEventListener('mouseover', (e) => {
      const bar = e.target.closest('.bar');
      if (!bar) { hideTooltip(); return; }
      const [title, rows] = barRows(s, items.get(bar), total);
      showTooltip(e, title, rows);
    });
    body.addEventListener('mousemove', moveTooltip);
    body.addEventListener('mouseleave', hideTooltip);
    body.addEventListener('click', (e) => {
      const bar = e.target.closest('.bar');
      if (bar) zoomTo(items.get(bar));
    });
    reset.addEventListener('click', zoomOut);
    document.addEventListener('keydown', (e) => { if (e.key === 'Escape') zoomOut(); });
    window.addEventListener('resize', () => { if (body.clientWidth !== drawnWidth) draw(); });
    // The self-test's count, from the records and not from what was drawn;
    // a walk over every record, so it is made only when asked for.
    expectedBarsOf.set(node, () => lane.bars.filter(
        (bar) => bar.depth >= view.depth && inView(bar, view)).length);
    return {node: node, draw: draw};
  }

  /// The section's flame chart. Its lanes are drawn by the returned `draw`,
  /// once the chart is in the page and has a width.
  function flameChart(s, index, total) {
    const box = el('div', 'flame');
    if (!s.records.length) {
      box.appendChild(el('p', 'empty', 'No passes completed in this section.'));
      return {node: box, draw: () => {}};
    }
    const layout = layoutSection(s);
    const lanes = layout.lanes.map((lane) => flameLane(s, index, total, lane, layout.scale));
    for (const lane of lanes) box.appendChild(lane.node);
    return {node: box, draw: () => lanes.forEach((lane) => lane.draw())};
  }
  // ---- tables ------------------------------------------------------------
  /// A table whose rows re-sort when a header is clicked (again: reversed).
  /// `columns`: {title, key(row) -> sortable value, cell(row) -> Node|string, cls}.
  function sortableTable(columns, rows, initial) {
    const table = el('table', 'sortable');
    const head = el('thead'), headRow = el('tr'), tbody = el('tbody');
    let sortIndex = initial.index, ascending = initial.ascending;
    columns.forEach((col, i) => {
      const th = el('th', col.cls || '', col.title);
      th.setAttribute('scope', 'col');
      th.tabIndex = 0;
      const activate = () => {
        if (sortIndex === i) ascending = !ascending;
        else { sortIndex = i; ascending = col.numeric === false; }
        render();
      };
      th.addEventListener('click', activate);
      th.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); activate(); } });
      headRow.appendChild(th);
    });
    head.appendChild(headRow);
    table.append(head, tbody);
    function render() {
      const key = columns[sortIndex].key;
      const sorted = rows.slice().sort((a, b) => {
        const x = key(a), y = key(b);
        const c = typeof x === 'string' ? x.localeCompare(y) : x - y;
        return ascending ? c : -c;
      });
      headRow.childNodes.forEach((th, i) => {
        if (i === sortIndex) th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
        else th.removeAttribute('aria-sort');
      });
      tbody.replaceChildren();
      for (const row of sorted) {
        const tr = el('tr');
        for (const col of columns) {
          const td = el('td', col.cls || '');
          const content = col.cell(row);
          if (content instanceof Node) td.appendChild(content); else td.textContent = String(content);
          tr.appendChild(td);
        }
        tbody.appendChild(tr);
      }
    }
    render();
    const wrap = el('div', 'table-wrap');
    wrap.appendChild(table);
    return wrap;
  }

  function shareCell(part, whole) {
    const span = el('span');
    const bar = el('span', 'share');
    bar.style.width = (whole > 0 ? Math.round(40 * part / whole) : 0) + 'px';
    span.append(bar, percent(part, whole));
    return span;
  }

  /// Sort key of a value that may be missing: missing sorts below all.
  function keyOf(v) { return v === undefined ? -Infinity : v; }

  /// A pass's sums of its runs' metrics, each over the runs that measured it.
  function addMetrics(a, r) {
    const cpuSelf = mv(r, 'cpu_self_ns');
    if (cpuSelf !== undefined) { a.cpuSelf = (a.cpuSelf || 0) + cpuSelf; a.cpuWall = (a.cpuWall || 0) + r[SELF]; }
    const growth = delta(r, 'rss_start_bytes', 'rss_end_bytes');
    if (growth !== undefined) a.rssGrowth = (a.rssGrowth || 0) + growth;
    const peak = mv(r, 'rss_peak_bytes');
    if (peak !== undefined) a.rssPeak = Math.max(a.rssPeak || 0, peak);
    const before = mv(r, 'ir_before'), after = mv(r, 'ir_after');
    if (before !== undefined && after !== undefined) {
      a.irBefore = (a.irBefore || 0) + before;
      a.irAfter = (a.irAfter || 0) + after;
    }
    const changed = irChange(r);
    if (changed !== undefined) {
      a.irKnown = (a.irKnown || 0) + 1;
      a.irChanged = (a.irChanged || 0) + (changed ? 1 : 0);
    }
    const instructions = mv(r, 'instructions_self');
    if (instructions !== undefined) a.instructions = (a.instructions || 0) + instructions;
  }

  /// The columns of the recorded metrics, for the per-pass table (sums per
  /// pass) and for the top table (one record), in the order of the metrics.
  function metricColumns(perPass) {
    const get = perPass ? (x) => x : (x) => {
      if (!x.m) addMetrics(x.m = {}, x.r);
      return x.m;
    };
    const or = (v, f) => (v === undefined ? NONE : f(v));
    const columns = [];
    if (recorded.has('cpu')) {
      columns.push(
          {title: 'CPU self (ms)', key: (x) => keyOf(get(x).cpuSelf), cell: (x) => or(get(x).cpuSelf, ms)},
          {title: 'CPU/wall %', key: (x) => (get(x).cpuWall > 0 ? get(x).cpuSelf / get(x).cpuWall : -Infinity),
           cell: (x) => (get(x).cpuSelf === undefined ? NONE : percent(get(x).cpuSelf, get(x).cpuWall))});
    }
    if (recorded.has('rss')) {
      columns.push(
          {title: 'RSS growth (MiB)', key: (x) => keyOf(get(x).rssGrowth), cell: (x) => or(get(x).rssGrowth, signedMib)},
          {title: 'RSS peak (MiB)', key: (x) => keyOf(get(x).rssPeak), cell: (x) => or(get(x).rssPeak, mib)});
    }
    if (recorded.has('ir')) {
      columns.push(
          {title: 'IR before\u2192after',
           key: (x) => (get(x).irBefore === undefined ? -Infinity : get(x).irAfter - get(x).irBefore),
           cell: (x) => (get(x).irBefore === undefined ? NONE : get(x).irBefore + '\u2192' + get(x).irAfter)},
          {title: perPass ? 'IR changed (runs)' : 'IR changed', key: (x) => keyOf(get(x).irChanged),
           cell: (x) => {
             const a = get(x);
             if (a.irKnown === undefined) return NONE;
             return perPass ? a.irChanged + ' of ' + a.irKnown : a.irChanged ? 'yes' : 'no';
           }});
    }
    if (recorded.has('instructions')) {
      columns.push({title: 'Instructions self', key: (x) => keyOf(get(x).instructions),
                    cell: (x) => or(get(x).instructions, grouped)});
    }
    return columns;
  }

  function aggregateTable(s, total) {
    const byName = new Map();
    for (const r of s.records) {
      let a = byName.get(r[NAME]);
      if (!a) byName.set(r[NAME], a = {name: s.names[r[NAME]], runs: 0, incl: 0, self: 0, max: 0});
      a.runs++;
      a.incl += r[INCL];
      a.self += r[SELF];
      a.max = Math.max(a.max, r[INCL]);
      if (s.metrics) addMetrics(a, r);
    }
    let selfTotal = 0;
    for (const a of byName.values()) selfTotal += a.self;
    const columns = [
      {title: 'Pass', cls: 'name', numeric: false, key: (a) => a.name, cell: (a) => a.name},
      {title: 'Runs', key: (a) => a.runs, cell: (a) => a.runs},
      {title: 'Inclusive (ms)', key: (a) => a.incl, cell: (a) => ms(a.incl)},
      {title: 'Self (ms)', key: (a) => a.self, cell: (a) => ms(a.self)},
      {title: 'Mean (ms)', key: (a) => a.incl / a.runs, cell: (a) => ms(a.incl / a.runs)},
      {title: 'Max (ms)', key: (a) => a.max, cell: (a) => ms(a.max)},
      {title: 'Self share', key: (a) => a.self, cell: (a) => shareCell(a.self, selfTotal)},
    ];
    if (s.metrics) columns.push(...metricColumns(true));
    const initial = ranksByCpu(s) ? columns.findIndex((c) => c.title === 'CPU self (ms)') : 3;
    const table = sortableTable(columns, [...byName.values()], {index: initial, ascending: false});
    table.firstChild.classList.add('aggregate');
    if (s.metrics) table.firstChild.classList.add('with-metrics');
    return table;
  }

  /// Whether a section's tables rank by CPU time: when it was recorded.
  /// Wall time also counts the waits for a processor (a parallel build, a
  /// busy machine), which land in whichever pass was running; CPU time is
  /// the work the pass did.
  function ranksByCpu(s) { return recorded.has('cpu') && !!s.metrics; }

  function topTable(s, total, n) {
    const cpuKey = (r) => keyOf(mv(r, 'cpu_self_ns'));
    const order = ranksByCpu(s) ? (a, b) => cpuKey(b) - cpuKey(a) || b[SELF] - a[SELF] || a[SEQ] - b[SEQ]
                                : (a, b) => b[SELF] - a[SELF] || a[SEQ] - b[SEQ];
    const top = s.records.slice().sort(order).slice(0, n);
    const columns = [
      {title: '#', key: (x) => x.rank, cell: (x) => x.rank},
      {title: 'Pass', cls: 'name', numeric: false, key: (x) => s.names[x.r[NAME]], cell: (x) => s.names[x.r[NAME]]},
      {title: 'Kernel', cls: 'kernel', numeric: false, key: (x) => s.names[x.r[KERNEL]], cell: (x) => s.names[x.r[KERNEL]]},
      {title: 'Self (ms)', key: (x) => x.r[SELF], cell: (x) => ms(x.r[SELF])},
      {title: 'Share', key: (x) => x.r[SELF], cell: (x) => shareCell(x.r[SELF], total)},
    ];
    if (s.metrics) columns.push(...metricColumns(false));
    const table = sortableTable(columns, top.map((r, i) => ({rank: i + 1, r: r})), {index: 0, ascending: true});
    table.firstChild.classList.add('top');
    if (s.metrics) table.firstChild.classList.add('with-metrics');
    return table;
  }

  // ---- phases ------------------------------------------------------------
  // Phase fields, in the order the C++ renderer writes them ("phases" is
  // absent for a profile without phases, whose page is then as before).
  const P_NAME = 0, P_DETAIL = 1, P_PARENT = 2, P_THREAD = 3, P_START = 4, P_DUR = 5,
        P_CPU = 6, P_FLAGS = 7;
  const phases = data.phases || [];
  /// Phases below this share of the lane's time are not drawn: a front
  /// end's thousand declarations would be thousands of invisible elements.
  /// Their time stays in their parent's bar.
  const MIN_PHASE_SHARE = 0.001;

  /// The compile's phases as one lane above the sections: each phase a bar
  /// at its time, on one axis from the first phase's start to the last one's
  /// end, a row per depth; under a phase with children, each stretch that
  /// none of them covers is a hatched "untimed" bar. Trees that overlap in
  /// time (an autotuner's concurrent compiles, each on its own thread) get
  /// bands of rows of their own, one below the other.
  function phaseLane() {
    const box = el('section', 'pt-phases');
    box.appendChild(el('h2', '', 'Phases'));
    let from = Infinity, to = -Infinity;
    for (const p of phases) {
      from = Math.min(from, p[P_START]);
      to = Math.max(to, p[P_START] + p[P_DUR]);
    }
    const span = Math.max(1, to - from);
    const depth = [], rootOf = [], children = phases.map(() => []);
    phases.forEach((p, i) => {
      const parent = p[P_PARENT];
      if (parent >= 0 && parent < i) {
        depth[i] = depth[parent] + 1;
        rootOf[i] = rootOf[parent];
        children[parent].push(i);
      } else {
        depth[i] = 0;
        rootOf[i] = i;
      }
    });
    const items = [];
    phases.forEach((p, i) => {
      const root = phases[rootOf[i]][P_DUR];
      items.push({phase: i, parent: p[P_PARENT], name: p[P_NAME], detail: p[P_DETAIL],
                  start: p[P_START], ns: p[P_DUR], depth: depth[i], root: root, tree: rootOf[i],
                  failed: (p[P_FLAGS] & FAILED) !== 0, cpu: p[P_CPU], thread: p[P_THREAD]});
      if (!children[i].length) return;
      const kids = children[i].map((c) => phases[c]).sort((a, b) => a[P_START] - b[P_START]);
      const gap = (a, b) => {
        if (b > a) {
          items.push({untimed: true, parent: i, name: 'untimed', detail: 'in ' + p[P_NAME],
                      start: a, ns: b - a, depth: depth[i] + 1, root: root, tree: rootOf[i]});
        }
      };
      let cursor = p[P_START];
      for (const k of kids) {
        gap(cursor, k[P_START]);
        cursor = Math.max(cursor, k[P_START] + k[P_DUR]);
      }
      gap(cursor, p[P_START] + p[P_DUR]);
    });
    const shown = items.filter((item) => item.depth === 0 || item.ns / span >= MIN_PHASE_SHARE);
    const lane = el('div', 'lane phase-lane');
    const body = el('div', 'lane-body');
    // Each tree's depth, then its band: the first whose trees all ended
    // before it began, in order of the trees' starts.
    const treeDepth = new Map();
    for (const item of shown) {
      treeDepth.set(item.tree, Math.max(treeDepth.get(item.tree) || 0, Math.min(item.depth, 200)));
    }
    const bands = [], bandOf = new Map();
    const trees = [...treeDepth.keys()].sort((a, b) => phases[a][P_START] - phases[b][P_START] || a - b);
    for (const tree of trees) {
      const start = phases[tree][P_START], end = start + phases[tree][P_DUR];
      let band = bands.find((b) => b.end <= start);
      if (!band) bands.push(band = {end: -Infinity, rows: 0, index: bands.length});
      band.end = Math.max(band.end, end);
      band.rows = Math.max(band.rows, treeDepth.get(tree) + 1);
      bandOf.set(tree, band);
    }
    let rows = 0;
    for (const band of bands) {
      band.offset = rows;
      rows += band.rows;
    }
    body.style.height = (rows * ROW_PX) + 'px';
    const itemOf = new WeakMap();
    for (const item of shown) {
      const bar = el('div', 'bar phase-bar' + (item.untimed ? ' untimed' : '') +
                     (item.failed ? ' failed' : ''));
      bar.dataset.phase = item.untimed ? 'u' + item.parent + '-' + item.start : item.phase;
      bar.dataset.parent = item.parent;
      bar.dataset.depth = item.depth;
      bar.style.left = (100 * (item.start - from) / span) + '%';
      bar.style.width = (100 * item.ns / span) + '%';
      bar.style.top = ((bandOf.get(item.tree).offset + Math.min(item.depth, 200)) * ROW_PX) + 'px';
      if (!item.untimed) bar.style.background = phaseColor(item.name);
      const label = item.name + (item.detail && !item.untimed ? ' ' + item.detail : '') +
          ' \u00b7 ' + duration(item.ns) + ' \u00b7 ' + percent(item.ns, item.root);
      bar.appendChild(el('span', 'bar-label', label));
      itemOf.set(bar, item);
      body.appendChild(bar);
    }
    body.addEventListener('mouseover', (e) => {
      const bar = e.target.closest('.bar');
      if (!bar) { hideTooltip(); return; }
      const item = itemOf.get(bar);
      const rows = [];
      if (item.detail) rows.push([item.untimed ? 'where' : 'detail', item.detail]);
      rows.push(['time', withShare(item.ns, item.root)]);
      if (!item.untimed) {
        if (item.cpu >= 0) rows.push(['CPU', duration(item.cpu)]);
        rows.push(['thread', item.thread]);
        if (item.failed) rows.push(['status', 'failed']);
      } else {
        rows.push(['', 'time of its phase that no phase inside it covers']);
      }
      showTooltip(e, item.name, rows);
    });
    body.addEventListener('mousemove', moveTooltip);
    body.addEventListener('mouseleave', hideTooltip);
    lane.append(body, axis(span));
    lane.dataset.hidden = items.length - shown.length;
    box.appendChild(lane);
    return box;
  }

  /// A stable cool colour per phase name, apart from the passes' warm ones.
  function phaseColor(name) {
    let h = 2166136261;
    for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
    h >>>= 0;
    return 'hsl(' + (180 + (h % 60)) + ', 45%, ' + (68 + ((h >>> 8) % 12)) + '%)';
  }

  if (phases.length) app.appendChild(phaseLane());

  // ---- sections ----------------------------------------------------------
  const drawCharts = [];
  sections.forEach((s, index) => {
    const total = sectionTotal(s);
    const node = el('section', 'pt-section');
    node.id = 'section-' + (index + 1);
    const head = el('div', 'section-head');
    head.appendChild(el('h2', '', 'Section ' + (index + 1)));
    if (s.context) head.appendChild(el('span', 'context', s.context));
    if (s.phase !== undefined && phases[s.phase]) {
      const p = phases[s.phase];
      head.appendChild(el('span', 'in-phase', 'in phase ' + p[P_NAME] +
                          (p[P_DETAIL] ? ' ' + p[P_DETAIL] : '')));
    }
    if (s.origin) {
      // A merged section names the profile it came from and its process.
      const from = s.origin.file || s.origin.command;
      const where = [s.origin.host, s.origin.pid ? 'pid ' + s.origin.pid : ''].filter(Boolean).join(', ');
      const origin = el('span', 'origin', 'from ' + from + (where ? ' (' + where + ')' : ''));
      if (s.origin.command) origin.title = s.origin.command;
      head.appendChild(origin);
    }
    node.appendChild(head);
    const stats = el('div', 'stats');
    stats.append('Total ', el('b', '', duration(total)), ' \u00b7 ', el('b', '', s.records.length),
                 ' pass executions \u00b7 ', el('b', '', s.skipped), ' skipped');
    node.appendChild(stats);
    node.appendChild(el('h3', '', 'Flame chart'));
    const chart = flameChart(s, index, total);
    node.appendChild(chart.node);
    drawCharts.push(chart.draw);
    if (s.records.length) {
      // With metric columns the tables are wide: one above the other.
      const columns = el('div', s.metrics ? 'columns stacked' : 'columns');
      const left = el('div'), right = el('div');
      left.append(el('h3', '', 'By pass'), aggregateTable(s, total));
      right.append(el('h3', '', 'Top ' + Math.min(data.top_n, s.records.length) +
                      (ranksByCpu(s) ? ' by CPU self time' : ' by self time')),
                   topTable(s, total, data.top_n));
      columns.append(left, right);
      node.appendChild(columns);
    }
    app.appendChild(node);
  });
  if (!sections.length) app.appendChild(el('p', 'empty', 'The profile has no sections.'));
  for (const draw of drawCharts) draw();
  const colourSelect = document.getElementById('colour-by');
  if (colourSelect) {
    colourSelect.addEventListener('change', () => {
      colourMode = COLOUR_MODES.find((mode) => mode.key === colourSelect.value) || COLOUR_MODES[0];
      if (colourMode.value && !('domain' in colourMode)) colourMode.domain = domainOf(colourMode);
      hideTooltip();
      drawLegend();
      for (const draw of drawCharts) draw();
    });
  }

  // ---- self-test ---------------------------------------------------------
  /// Measures one lane as the browser drew it: how many records its bars
  /// stand for (from the view's depth down), whether every child sits
  /// inside its parent, and the summed width of the bars at the view's depth
  /// against the width the lane's data asks for.
  function measureLane(lane) {
    const body = lane.querySelector('.lane-body').getBoundingClientRect();
    const bars = [...lane.querySelectorAll('.bar')];
    const rects = new Map(bars.map((b) => [b.dataset.seq, b.getBoundingClientRect()]));
    const zoomDepth = Number(lane.dataset.zoomDepth);
    const m = {section: Number(lane.dataset.section), thread: Number(lane.dataset.thread),
               widthPx: body.width, elements: bars.length,
               merged: bars.filter((b) => b.classList.contains('merged')).length,
               bars: 0, expectedBars: expectedBarsOf.get(lane)(), zoomDepth: zoomDepth,
               levelSumPx: 0, levelErrorPx: 0, containmentViolations: 0, unnestedBars: 0,
               maxChildExcessPx: 0};
    const childSum = new Map();
    for (const b of bars) {
      const rect = rects.get(b.dataset.seq);
      const depth = Number(b.dataset.depth);
      if (depth >= zoomDepth) m.bars += Number(b.dataset.count);
      if (depth === zoomDepth) m.levelSumPx += rect.width;
      if (depth === 0) continue;
      const parent = rects.get(b.dataset.parent);
      if (!parent) { m.unnestedBars++; continue; }
      childSum.set(b.dataset.parent, (childSum.get(b.dataset.parent) || 0) + rect.width);
      if (rect.left < parent.left - 0.5 || rect.right > parent.right + 0.5) m.containmentViolations++;
    }
    for (const [seq, sum] of childSum) {
      m.maxChildExcessPx = Math.max(m.maxChildExcessPx, sum - rects.get(seq).width);
    }
    const expectedPx = body.width * Number(lane.dataset.levelNs) / Math.max(1, Number(lane.dataset.viewNs));
    m.levelErrorPx = Math.abs(m.levelSumPx - expectedPx);
    return m;
  }

  /// Switches the flame chart through every colour mode and notes, per
  /// mode, the computed colour of the first lane's first bar, the legend,
  /// and how many bars have no value; then switches back. Null without a
  /// switch.
  function colourSwitchTest() {
    const select = document.getElementById('colour-by');
    if (!select) return null;
    const firstBar = () => document.querySelector('.lane:not(.phase-lane) .bar:not(.merged)');
    const seq = firstBar().dataset.seq;
    const out = {options: [...select.options].map((o) => o.value),
                 labels: [...select.options].map((o) => o.textContent),
                 label: select.labels.length ? select.labels[0].textContent : '', seq: seq, modes: {}};
    const look = (value) => {
      select.value = value;
      select.dispatchEvent(new Event('change'));
      const bar = document.querySelector('.lane:not(.phase-lane) .bar[data-seq="' + seq + '"]');
      return {background: getComputedStyle(bar).backgroundColor,
              legendShown: !legend.hidden && getComputedStyle(legend).display !== 'none',
              legend: legend.textContent,
              unmeasured: document.querySelectorAll('.bar.unmeasured').length};
    };
    for (const value of out.options) out.modes[value] = look(value);
    out.restored = look(out.options[0]);
    return out;
  }

  /// The phase lane as the browser drew it: its bars' labels, how many are
  /// untimed, and how many do not lie within their parent's bar. Null
  /// without phases.
  function phaseLaneTest() {
    const lane = document.querySelector('.phase-lane');
    if (!lane) return null;
    const bars = [...lane.querySelectorAll('.phase-bar')];
    const rects = new Map(bars.map((b) => [b.dataset.phase, b.getBoundingClientRect()]));
    let outside = 0, overlaps = 0;
    for (const b of bars) {
      const parent = rects.get(b.dataset.parent);
      const rect = rects.get(b.dataset.phase);
      if (parent && (rect.left < parent.left - 0.5 || rect.right > parent.right + 0.5)) outside++;
      if (parent && rect.top < parent.bottom - 0.5) outside++;  // a child sits below its parent
    }
    // Bars of one row that share more than half a pixel.
    for (let i = 0; i < bars.length; i++) {
      for (let j = i + 1; j < bars.length; j++) {
        const a = rects.get(bars[i].dataset.phase), b = rects.get(bars[j].dataset.phase);
        if (Math.abs(a.top - b.top) < 0.5 &&
            Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5) overlaps++;
      }
    }
    return {bars: bars.length, untimed: lane.querySelectorAll('.phase-bar.untimed').length,
            failed: lane.querySelectorAll('.phase-bar.failed').length,
            hidden: Number(lane.dataset.hidden), outsideParent: outside, overlaps: overlaps,
            rows: Math.round(lane.querySelector('.lane-body').getBoundingClientRect().height / ROW_PX),
            labels: bars.map((b) => b.textContent),
            inPhase: [...document.querySelectorAll('.pt-section .in-phase')].map((n) => n.textContent)};
  }

  /// With #selftest the page measures its own layout, as the browser drew
  /// it, and writes what it found for the headless-browser test to read.
  /// It then zooms the first lane into a merged bar (or else the first
  /// top-level bar with passes inside), measures again, and zooms out.
  function selfTest() {
    const result = {bars: 0, elements: 0, merged: 0, records: allRecords, lanes: [],
                    maxLevelErrorPx: 0, maxChildExcessPx: 0, containmentViolations: 0,
                    unnestedBars: 0, hostileNames: 0, hostileShownAsText: 0,
                    images: document.getElementsByTagName('img').length,
                    scripts: document.scripts.length, tableRows: 0};
    result.phaseLane = phaseLaneTest();
    const lanes = [...document.querySelectorAll('.lane:not(.phase-lane)')];
    for (const lane of lanes) {
      const m = measureLane(lane);
      for (const key of ['bars', 'elements', 'merged', 'containmentViolations', 'unnestedBars']) {
        result[key] += m[key];
      }
      result.maxLevelErrorPx = Math.max(result.maxLevelErrorPx, m.levelErrorPx);
      result.maxChildExcessPx = Math.max(result.maxChildExcessPx, m.maxChildExcessPx);
      result.lanes.push(m);
    }
    const labels = new Set([...document.querySelectorAll('.bar-label')].map((n) => n.textContent));
    const cells = new Set([...document.querySelectorAll('table.aggregate td.name')].map((n) => n.textContent));
    result.tableRows = document.querySelectorAll('table.aggregate tbody tr').length;
    const textOf = (nodes) => [...nodes].map((n) => n.textContent);
    result.tables = [...document.querySelectorAll('.pt-section table')].map((table) => ({
      kind: table.classList.contains('aggregate') ? 'aggregate' : 'top',
      head: textOf(table.querySelectorAll('thead th')),
      rows: [...table.querySelectorAll('tbody tr')].map((tr) => textOf(tr.children))}));
    result.sectionHeads = textOf(document.querySelectorAll('.pt-section .section-head'));
    result.tableTitles = textOf(document.querySelectorAll('.pt-section h3'));
    result.unavailable = textOf(document.querySelectorAll('header .unavailable span'));
    result.colourSwitch = colourSwitchTest();
    const hovered = document.querySelector('.lane:not(.phase-lane) .bar:not(.merged)');
    if (hovered) {
      const box = hovered.getBoundingClientRect();
      hovered.dispatchEvent(new MouseEvent('mouseover', {bubbles: true, clientX: box.left + 1,
                                                         clientY: box.top + 1}));
      result.tooltip = [...tooltip.querySelectorAll('.tt-row')].map((row) => textOf(row.children));
      hideTooltip();
    }
    for (const s of sections) {
      const passNames = new Set(s.records.map((r) => s.names[r[NAME]]));
      for (const name of passNames) {
        if (!/[<>&"'\\]/.test(name)) continue;
        result.hostileNames++;
        if (labels.has(name) && cells.has(name)) result.hostileShownAsText++;
      }
    }
    if (lanes.length) {
      const lane = lanes[0];
      const target = lane.querySelector('.bar.merged') ||
          [...lane.querySelectorAll('.bar[data-depth="0"]')].find((b) => Number(b.dataset.count) > 1);
      if (target) {
        result.zoomTarget = {merged: target.classList.contains('merged'),
                             count: Number(target.dataset.count), depth: Number(target.dataset.depth)};
        target.click();
        result.zoomed = measureLane(lane);
        result.zoomedTitle = lane.querySelector('.zoom-where').textContent;
        lane.querySelector('.zoom-reset').click();
        result.afterZoomOut = measureLane(lane);
      }
    }
    const out = el('pre', '', JSON.stringify(result));
    out.id = 'passtiming-selftest';
    document.body.appendChild(out);
  }
  if (location.hash === '#selftest') selfTest();
})();
