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

  // ---- header ------------------------------------------------------------
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
  app.appendChild(header);

  // ---- flame chart -------------------------------------------------------
  /// Lays out one section: per thread a lane of bars. A bar's width is its
  /// inclusive time over the section's scale (the longest thread's top-level
  /// time); bars sit in start order with idle time between passes removed,
  /// children inside their parent from its left edge, so top-level bars fill
  /// the longest lane and children never overhang their parent.
  function layoutSection(s) {
    const bySeq = new Map();
    const lanes = new Map();
    for (const r of s.records) {
      bySeq.set(r[SEQ], r);
      if (!lanes.has(r[THREAD])) lanes.set(r[THREAD], {thread: r[THREAD], total: 0, depth: 0, bars: []});
    }
    const offset = new Map();   // sequence -> left edge, in ns of packed time
    const cursor = new Map();   // sequence -> next free ns inside the record
    const width = new Map();    // sequence -> drawn width in ns
    for (const r of s.records) {  // records arrive in sequence (start) order
      const lane = lanes.get(r[THREAD]);
      const parent = r[PARENT] >= 0 ? bySeq.get(r[PARENT]) : undefined;
      let left, room;
      if (parent && width.has(parent[SEQ])) {
        left = cursor.get(parent[SEQ]);
        room = offset.get(parent[SEQ]) + width.get(parent[SEQ]) - left;
      } else {
        left = lane.total;
        room = Infinity;
      }
      const w = Math.max(0, Math.min(r[INCL], room));
      offset.set(r[SEQ], left);
      cursor.set(r[SEQ], left);
      width.set(r[SEQ], w);
      if (parent && width.has(parent[SEQ])) cursor.set(parent[SEQ], left + w);
      else lane.total += w;
      lane.depth = Math.max(lane.depth, r[DEPTH]);
      lane.bars.push({r: r, left: left, width: w});
    }
    let scale = 0;
    for (const lane of lanes.values()) scale = Math.max(scale, lane.total);
    return {lanes: [...lanes.values()].sort((a, b) => a.thread - b.thread), scale: scale};
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

  function flameChart(s, index, total) {
    const box = el('div', 'flame');
    if (!s.records.length) {
      box.appendChild(el('p', 'empty', 'No passes completed in this section.'));
      return box;
    }
    const layout = layoutSection(s);
    for (const lane of layout.lanes) {
      const laneNode = el('div', 'lane');
      laneNode.dataset.section = index;
      laneNode.dataset.thread = lane.thread;
      laneNode.dataset.totalNs = lane.total;
      laneNode.dataset.scaleNs = layout.scale;
      let label = 'thread ' + lane.thread;
      const key = s.threads[lane.thread];
      if (key !== undefined && key !== lane.thread) label += ' (tid ' + key + ')';
      laneNode.appendChild(el('div', 'lane-label', label));
      const body = el('div', 'lane-body');
      body.style.height = ((Math.min(lane.depth, 200) + 1) * ROW_PX) + 'px';
      for (const bar of lane.bars) {
        const r = bar.r;
        const name = s.names[r[NAME]], kernel = s.names[r[KERNEL]];
        const node = el('div', 'bar' + (r[FLAGS] & FAILED ? ' failed' : ''));
        node.dataset.seq = r[SEQ];
        node.dataset.parent = r[PARENT];
        node.dataset.depth = r[DEPTH];
        const frac = layout.scale > 0 ? 100 / layout.scale : 0;
        node.style.left = (bar.left * frac) + '%';
        node.style.width = (bar.width * frac) + '%';
        node.style.top = (Math.min(r[DEPTH], 200) * ROW_PX) + 'px';
        node.style.background = color(name);
        node.appendChild(el('span', 'bar-label', name));
        const rows = [['kernel', kernel || '\u2013'],
                      ['inclusive', duration(r[INCL]) + '  (' + percent(r[INCL], total) + ')'],
                      ['self', duration(r[SELF]) + '  (' + percent(r[SELF], total) + ')'],
                      ['depth', r[DEPTH]], ['sequence', r[SEQ]]];
        if (r[FLAGS] & FAILED) rows.push(['status', 'failed']);
        node.addEventListener('mouseenter', (e) => showTooltip(e, name, rows));
        node.addEventListener('mousemove', moveTooltip);
        node.addEventListener('mouseleave', hideTooltip);
        body.appendChild(node);
      }
      laneNode.appendChild(body);
      laneNode.appendChild(axis(layout.scale));
      box.appendChild(laneNode);
    }
    return box;
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

  function aggregateTable(s, total) {
    const byName = new Map();
    for (const r of s.records) {
      let a = byName.get(r[NAME]);
      if (!a) byName.set(r[NAME], a = {name: s.names[r[NAME]], runs: 0, incl: 0, self: 0, max: 0});
      a.runs++;
      a.incl += r[INCL];
      a.self += r[SELF];
      a.max = Math.max(a.max, r[INCL]);
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
    const table = sortableTable(columns, [...byName.values()], {index: 3, ascending: false});
    table.firstChild.classList.add('aggregate');
    return table;
  }

  function topTable(s, total, n) {
    const top = s.records.slice().sort((a, b) => b[SELF] - a[SELF] || a[SEQ] - b[SEQ]).slice(0, n);
    const columns = [
      {title: '#', key: (x) => x.rank, cell: (x) => x.rank},
      {title: 'Pass', cls: 'name', numeric: false, key: (x) => s.names[x.r[NAME]], cell: (x) => s.names[x.r[NAME]]},
      {title: 'Kernel', cls: 'kernel', numeric: false, key: (x) => s.names[x.r[KERNEL]], cell: (x) => s.names[x.r[KERNEL]]},
      {title: 'Self (ms)', key: (x) => x.r[SELF], cell: (x) => ms(x.r[SELF])},
      {title: 'Share', key: (x) => x.r[SELF], cell: (x) => shareCell(x.r[SELF], total)},
    ];
    const table = sortableTable(columns, top.map((r, i) => ({rank: i + 1, r: r})), {index: 0, ascending: true});
    table.firstChild.classList.add('top');
    return table;
  }

  // ---- sections ----------------------------------------------------------
  sections.forEach((s, index) => {
    const total = sectionTotal(s);
    const node = el('section', 'pt-section');
    node.id = 'section-' + (index + 1);
    const head = el('div', 'section-head');
    head.appendChild(el('h2', '', 'Section ' + (index + 1)));
    if (s.context) head.appendChild(el('span', 'context', s.context));
    node.appendChild(head);
    const stats = el('div', 'stats');
    stats.append('Total ', el('b', '', duration(total)), ' \u00b7 ', el('b', '', s.records.length),
                 ' pass executions \u00b7 ', el('b', '', s.skipped), ' skipped');
    node.appendChild(stats);
    node.appendChild(el('h3', '', 'Flame chart'));
    node.appendChild(flameChart(s, index, total));
    if (s.records.length) {
      const columns = el('div', 'columns');
      const left = el('div'), right = el('div');
      left.append(el('h3', '', 'By pass'), aggregateTable(s, total));
      right.append(el('h3', '', 'Top ' + Math.min(data.top_n, s.records.length) + ' by self time'),
                   topTable(s, total, data.top_n));
      columns.append(left, right);
      node.appendChild(columns);
    }
    app.appendChild(node);
  });
  if (!sections.length) app.appendChild(el('p', 'empty', 'The profile has no sections.'));

  // ---- self-test ---------------------------------------------------------
  /// With #selftest the page measures its own layout, as the browser drew
  /// it, and writes what it found for the headless-browser test to read.
  function selfTest() {
    const result = {bars: 0, records: allRecords, lanes: [], maxTopLevelErrorPx: 0,
                    maxChildExcessPx: -Infinity, containmentViolations: 0, unnestedBars: 0,
                    hostileNames: 0, hostileShownAsText: 0, images: document.getElementsByTagName('img').length,
                    scripts: document.scripts.length, tableRows: 0};
    for (const lane of document.querySelectorAll('.lane')) {
      const body = lane.querySelector('.lane-body').getBoundingClientRect();
      const bars = [...lane.querySelectorAll('.bar')];
      result.bars += bars.length;
      const rects = new Map(bars.map((b) => [b.dataset.seq, b.getBoundingClientRect()]));
      let topSum = 0;
      const childSum = new Map();
      for (const b of bars) {
        const rect = rects.get(b.dataset.seq);
        const parent = rects.get(b.dataset.parent);
        if (b.dataset.depth === '0') { topSum += rect.width; continue; }
        if (!parent) { result.unnestedBars++; continue; }
        childSum.set(b.dataset.parent, (childSum.get(b.dataset.parent) || 0) + rect.width);
        if (rect.left < parent.left - 0.5 || rect.right > parent.right + 0.5) result.containmentViolations++;
      }
      for (const [seq, sum] of childSum) {
        result.maxChildExcessPx = Math.max(result.maxChildExcessPx, sum - rects.get(seq).width);
      }
      const expected = body.width * Number(lane.dataset.totalNs) / Math.max(1, Number(lane.dataset.scaleNs));
      const error = Math.abs(topSum - expected);
      result.maxTopLevelErrorPx = Math.max(result.maxTopLevelErrorPx, error);
      result.lanes.push({section: Number(lane.dataset.section), thread: Number(lane.dataset.thread),
                         widthPx: body.width, topLevelSumPx: topSum, bars: bars.length});
    }
    if (result.maxChildExcessPx === -Infinity) result.maxChildExcessPx = 0;
    const labels = new Set([...document.querySelectorAll('.bar-label')].map((n) => n.textContent));
    const cells = new Set([...document.querySelectorAll('table.aggregate td.name')].map((n) => n.textContent));
    result.tableRows = document.querySelectorAll('table.aggregate tbody tr').length;
    for (const s of sections) {
      const passNames = new Set(s.records.map((r) => s.names[r[NAME]]));
      for (const name of passNames) {
        if (!/[<>&"'\\]/.test(name)) continue;
        result.hostileNames++;
        if (labels.has(name) && cells.has(name)) result.hostileShownAsText++;
      }
    }
    const out = el('pre', '', JSON.stringify(result));
    out.id = 'passtiming-selftest';
    document.body.appendChild(out);
  }
  if (location.hash === '#selftest') selfTest();
})();
