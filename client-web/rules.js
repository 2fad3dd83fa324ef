// client-web/rules.js: the game's rules (issue 19 point 2). The create
// form's house rules: a ruleset file (rulesets/README.md's shape) put into
// the scenario as its `ruleset` member (PROTOCOL.md §5.1 sends the
// scenario's text; the server checks the ruleset). The game page's "Rules
// of this game" card: the snapshot's `ruleset` (PROTOCOL.md §7.1:
// {unit: "in" | "cm", differs: [{member, rule, text}]}, present only when
// the game's ruleset differs from the default; it never changes during a
// game), the same for players, the umpire and spectators.
import { h, replace } from './dom.js';

// The largest house rules file the form takes, in bytes (as `brigade new
// --ruleset`; rulesets/default.json, every member, is under 1 KiB).
export const RULESET_FILE_MAX = 65536;

// A house rules file that cannot go into the scenario; its message is for
// the house rules' field.
export class RulesetError extends Error {}

// The scenario `scenarioText` (JSON text) with the ruleset `rulesetText`
// (the text of the file `fileName`) as its `ruleset` member, replacing one
// it had; the scenario's other members keep their order. Returns the new
// scenario text. Throws RulesetError when rulesetText is not one JSON
// object ("house.json is not JSON: …", "house.json is not a ruleset: a
// ruleset is one JSON object"), or Error when the scenario is not a JSON
// object (the ruleset cannot be put into it).
export function withRuleset(scenarioText, rulesetText, fileName = 'The house rules file') {
  let ruleset;
  try {
    ruleset = JSON.parse(rulesetText);
  } catch (failure) {
    throw new RulesetError(`${fileName} is not JSON: ${failure.message}`);
  }
  if (!ruleset || typeof ruleset !== 'object' || Array.isArray(ruleset)) {
    throw new RulesetError(`${fileName} is not a ruleset: a ruleset is one JSON object ({"unit": "cm", …}, rulesets/README.md)`);
  }
  let scenario;
  try {
    scenario = JSON.parse(scenarioText);
  } catch (failure) {
    throw new Error(`The scenario is not JSON, so the house rules cannot be added to it: ${failure.message}`);
  }
  if (!scenario || typeof scenario !== 'object' || Array.isArray(scenario)) {
    throw new Error('The scenario is not a JSON object, so the house rules cannot be added to it.');
  }
  scenario.ruleset = ruleset;
  return JSON.stringify(scenario);
}

// The snapshot's rules that differ from the default, [{rule, text}] in
// the server's order (entries without a text left out); [] for a game by
// the default ruleset.
export function rulesDiffers(state) {
  const ruleset = state && state.ruleset && typeof state.ruleset === 'object' ? state.ruleset : null;
  const differs = ruleset && Array.isArray(ruleset.differs) ? ruleset.differs : [];
  return differs.filter((item) => item && typeof item === 'object' && typeof item.text === 'string' && item.text)
    .map((item) => ({ text: item.text, rule: typeof item.rule === 'string' ? item.rule : '' }));
}

// Fills `root` (the card's body, #rules-body) from `state`: each rule that
// differs, its text and its rule section (a `.rule` tag, as the log's
// modifiers), or "The default ruleset".
// Rebuilt only when the rules change (`root.dataset.rules` keeps them).
export function renderRules(root, state) {
  const differs = rulesDiffers(state);
  const signature = JSON.stringify(differs);
  if (root.dataset.rules === signature) return;
  root.dataset.rules = signature;
  root.closest('section').dataset.ruleset = differs.length ? 'house' : 'default';
  if (!differs.length) {
    replace(root, h('p', { class: 'rules-default' }, 'The default ruleset.'),
      h('p', { class: 'hint' }, 'The morale numbers, the mandatory moves and the charge switches are the rules\' defaults; distances in inches.'));
    return;
  }
  replace(root,
    h('p', { class: 'hint' }, 'This game plays by house rules. What differs from the default ruleset:'),
    h('ul', { class: 'rules-list' }, differs.map((item) => h('li', {},
      h('span', { class: 'rules-text' }, item.text),
      item.rule ? [' ', h('span', { class: 'rule' }, item.rule)] : null))));
}
