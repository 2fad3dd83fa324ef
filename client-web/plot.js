// client-web/plot.js: each side's total figures by turn, as a small inline
// SVG. Point 0 is the start of the battle, point T the end of turn T (the
// state when turn T+1 begins); the current turn's point follows the state,
// and is labelled "now" (hollow) while that turn is not over.
//
// Kept client-side: live, from the state at each turn change; on joining a
// game already under way, reconstructed from the log where it can be: a
// melee result gives a unit's figures before (figures + casualties) and
// after; an adjustment (unit_changed) gives them after, from its `figures`
// member when the server sends one, else from its text ("hussars: 5
// figures, ..."). A unit with no such entry kept its current figures.
import { h, replace, s } from './dom.js';

const SIDES = ['A', 'B'];

function totals(units, figuresOf) {
  const sum = { A: 0, B: 0 };
  for (const [id, unit] of Object.entries(units || {})) {
    if (SIDES.includes(unit.side)) sum[unit.side] += figuresOf(id, unit);
  }
  return sum;
}

function current(state) {
  return totals(state.units, (id, unit) => (Number.isFinite(unit.figures) ? unit.figures : 0));
}

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The figures a log entry says `unit` has after it, or null.
function figuresAfter(entry) {
  if (entry.kind === 'melee_unit_result' && Number.isFinite(entry.figures)) return entry.figures;
  if (entry.kind === 'unit_changed' && typeof entry.unit === 'string') {
    if (Number.isFinite(entry.figures)) return entry.figures;
    const match = typeof entry.text === 'string' &&
      new RegExp(`^${escapeRegExp(entry.unit)}: (\\d+) figures,`).exec(entry.text);
    if (match) return Number(match[1]);
  }
  return null;
}

// {turn: {A, B}} from the log and the current state.
export function reconstruct(state) {
  const log = Array.isArray(state.log) ? state.log : [];
  // Per unit: [index, before|null, after] of each entry that tells its figures.
  const records = new Map();
  log.forEach((entry, index) => {
    if (!entry || typeof entry !== 'object') return;
    const after = figuresAfter(entry);
    if (after === null) return;
    const before = entry.kind === 'melee_unit_result' && Number.isFinite(entry.casualties)
      ? after + entry.casualties : null;
    if (!records.has(entry.unit)) records.set(entry.unit, []);
    records.get(entry.unit).push([index, before, after]);
  });
  const at = (position) => totals(state.units, (id, unit) => {
    const list = records.get(id) || [];
    let value = null;
    for (const [index, , after] of list) if (index < position) value = after;
    if (value !== null) return value;
    const next = list.find(([index]) => index >= position);
    if (next) return next[1] !== null ? next[1] : next[2];
    return Number.isFinite(unit.figures) ? unit.figures : 0;
  });
  const points = new Map([[0, at(0)]]);
  log.forEach((entry, index) => {
    if (entry && entry.kind === 'turn_begun' && Number.isInteger(entry.turn) && entry.turn > 1) {
      points.set(entry.turn - 1, at(index));
    }
  });
  if (Number.isInteger(state.turn)) points.set(state.turn, current(state));
  return points;
}

export class StrengthPlot {
  constructor(root) {
    this.root = root;
    this.points = new Map();
    this.turn = null;
  }

  // A whole snapshot (joining, or joining again after a drop): rebuild
  // from the log, keeping the points this page took from real states of
  // turns before the current one.
  reset(state) {
    const seen = [...this.points].filter(([turn]) => turn > 0 && turn < state.turn);
    this.points = new Map([...reconstruct(state), ...seen].sort((a, b) => a[0] - b[0]));
    this.turn = state.turn;
    this.render(state);
  }

  update(state) {
    const now = current(state);
    if (Number.isInteger(this.turn) && state.turn > this.turn) {
      for (let turn = this.turn; turn < state.turn; turn += 1) this.points.set(turn, now);
    }
    this.turn = state.turn;
    if (Number.isInteger(state.turn)) this.points.set(state.turn, now);
    this.render(state);
  }

  series() {
    return [...this.points.entries()].sort((a, b) => a[0] - b[0]);
  }

  render(state) {
    const series = this.series();
    const width = 320;
    const height = 150;
    const left = 34;
    const right = 10;
    const top = 10;
    const bottom = 26;
    const lastTurn = Math.max(1, ...series.map(([turn]) => turn));
    const most = Math.max(1, ...series.flatMap(([, sum]) => [sum.A, sum.B]));
    const x = (turn) => left + (turn / lastTurn) * (width - left - right);
    const y = (value) => top + (1 - value / most) * (height - top - bottom);
    const name = (side) => (state.sides && state.sides[side] && state.sides[side].name) || `side ${side}`;
    const first = series[0] ? series[0][1] : { A: 0, B: 0 };
    const last = series.length ? series[series.length - 1][1] : { A: 0, B: 0 };
    const summary = SIDES.map((side) => `${name(side)} ${first[side]} to ${last[side]} figures`).join('; ');
    const every = Math.ceil((lastTurn + 1) / 10);
    // The current turn is not over (unless the battle has ended): its point is "now".
    const now = Number.isInteger(state.turn) && state.turn > 0 && state.phase !== 'ended' ? state.turn : null;
    const pointName = (turn) => (turn === 0 ? 'start' : turn === now ? `now (turn ${turn}, not over)` : `end of turn ${turn}`);
    const ticks = Array.from({ length: lastTurn + 1 }, (_, turn) => turn)
      .filter((turn) => turn === now || (turn % every === 0 && (now === null || Math.abs(x(turn) - x(now)) > 24)));
    const svg = s('svg', {
      viewBox: `0 0 ${width} ${height}`, role: 'img', class: 'plot',
      'aria-labelledby': 'plot-title plot-desc',
    },
    s('title', { id: 'plot-title' }, 'Total figures of each side by turn'),
    s('desc', { id: 'plot-desc' }, `From the start to ${now === null ? `turn ${lastTurn}` : `now (turn ${now})`}: ${summary}.`),
    [0, 0.5, 1].map((fraction) => {
      const value = Math.round(most * fraction);
      return s('g', { class: 'grid' },
        s('line', { x1: left, x2: width - right, y1: y(value), y2: y(value) }),
        s('text', { x: left - 4, y: y(value) + 4, 'text-anchor': 'end' }, String(value)));
    }),
    ticks.map((turn) => s('text', {
      class: turn === now ? 'tick now' : 'tick', x: x(turn), y: height - 8,
      'text-anchor': turn === now && turn === lastTurn ? 'end' : 'middle',
      dataset: { turn: String(turn) },
    }, turn === 0 ? 'start' : turn === now ? `now (${turn})` : String(turn))),
    SIDES.map((side) => s('g', { class: `series side-${side}` },
      s('polyline', { points: series.map(([turn, sum]) => `${x(turn)},${y(sum[side])}`).join(' ') }),
      series.map(([turn, sum]) => s('circle', { cx: x(turn), cy: y(sum[side]), r: 3, class: turn === now ? 'now' : null },
        s('title', {}, `${name(side)}, ${pointName(turn)}: ${sum[side]} figures`))))));
    const caption = now === null
      ? (state.phase === 'ended' ? 'Figures of each side at the start and at the end of each turn; the battle has ended.'
        : 'Figures of each side at the start and at the end of each turn.')
      : `Figures of each side at the start, at the end of each turn, and now: turn ${now} is not over (the hollow point).`;
    replace(this.root, svg, h('p', { class: 'axis hint' }, caption),
      h('ul', { class: 'legend' }, SIDES.map((side) => h('li', { class: `side-${side}` },
        h('span', { class: 'swatch', 'aria-hidden': 'true' }), `${name(side)}: ${last[side]} figures now`))));
  }
}
