// client-web/presence.js: who is connected to the game, for the page's
// header (players and the umpire; spectators are told nothing of it), from
// the server's `presence` (PROTOCOL.md §6.8: {A, B, umpire}, each the
// number of connections joined as that seat) and `watchers` (§6.7: the
// number of spectators).
import { capital } from './names.js';

// "French", else "side A".
function sideLabel(state, side) {
  const name = state && state.sides && state.sides[side] && state.sides[side].name;
  return typeof name === 'string' && name ? name : `side ${side}`;
}

/* The header's parts, in order: [{seat, text, status}] where seat is "A",
 * "B", "umpire" or "watchers", status "you" | "connected" | "absent" |
 * "none" (no umpire seated: state.umpire false) | "watching", and text
 * what the reader sees ("French (you)", "British: connected", "Umpire: not
 * seated", "2 watching"). `presence` null (not known yet): only "you" and
 * the watchers. `mode` is "play" or "umpire" (else: no parts). */
export function presenceParts(state, presence, { seat, mode, watchers = 0 }) {
  if (mode !== 'play' && mode !== 'umpire') return [];
  const parts = [];
  const you = mode === 'umpire' ? 'umpire' : seat;
  const joined = (who) => (presence ? presence[who] : null);
  for (const who of ['A', 'B', 'umpire']) {
    const label = who === 'umpire' ? 'Umpire' : sideLabel(state, who);
    if (who === you) {
      // The same seat open in another tab or by another person (§6.8: 2 or more).
      const twice = joined(who) !== null && joined(who) >= 2;
      parts.push({ seat: who, status: 'you', text: twice ? `${label} (you, open in ${joined(who)} places)` : `${label} (you)` });
      continue;
    }
    const count = joined(who);
    if (count === null) continue;
    if (who === 'umpire' && count === 0 && state && state.umpire !== true) {
      parts.push({ seat: who, status: 'none', text: 'Umpire: not seated' });
      continue;
    }
    parts.push({ seat: who, status: count > 0 ? 'connected' : 'absent',
      text: `${label}: ${count > 0 ? 'connected' : 'not connected'}` });
  }
  if (watchers > 0) parts.push({ seat: 'watchers', status: 'watching', text: `${watchers} watching` });
  return parts;
}

/* What to announce when `presence` follows `before` (both {A, B, umpire}
 * or null): a player hears of the other side and the umpire dropping or
 * coming back, the umpire of either side. Returns a list of sentences
 * ("British disconnected.", "British are connected again."); none when
 * either is null (a page joining or reconnecting learns it from the
 * header). */
export function presenceNews(state, before, presence, { seat, mode }) {
  if (!before || !presence || (mode !== 'play' && mode !== 'umpire')) return [];
  const watched = mode === 'umpire' ? ['A', 'B'] : [seat === 'A' ? 'B' : 'A', 'umpire'];
  const news = [];
  for (const who of watched) {
    const was = before[who] > 0;
    const now = presence[who] > 0;
    if (was === now) continue;
    const label = who === 'umpire' ? 'The umpire' : capital(sideLabel(state, who));
    news.push(now ? `${label}: connected again.` : `${label}: disconnected.`);
  }
  return news;
}
