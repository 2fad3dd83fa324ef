// client-web/panel.js: what the player's orders (controls.js Controls) and
// the umpire's panel (umpire.js UmpirePanel) share: their parts found by id
// in the page (index.html: #<prefix>-title, -error, -busy, -body), a
// refusal shown in words with its code, and one action sent at a time with
// the panel marked busy.
import { h, replace } from './dom.js';
import { errorWords } from './names.js';

export class Panel {
  // `root`: the panel's element; `act(action)`: sends one action
  // (wire.js Session act), resolving to the server's answer; `prefix`: the
  // ids' ("controls", "umpire").
  constructor(root, act, prefix) {
    this.root = root;
    this.act = act;
    this.title = root.querySelector(`#${prefix}-title`);
    this.error = root.querySelector(`#${prefix}-error`);
    this.busy = root.querySelector(`#${prefix}-busy`);
    this.body = root.querySelector(`#${prefix}-body`);
    this.signature = '';
    this.pending = false;
    this.confirming = null;
    this.state = null;
  }

  // "Refused: <message> (<words>) [<code>]", or nothing when `code` is null.
  showError(code, message) {
    this.errorCode = code || null;
    if (!code) { replace(this.error); this.error.hidden = true; return; }
    this.error.hidden = false;
    replace(this.error, h('strong', {}, 'Refused: '), message || errorWords(code), ' ',
      h('span', { class: 'code' }, `(${errorWords(code)}) [${code}]`));
  }

  // Live again: a refusal for being offline no longer holds.
  connected() {
    if (this.errorCode === 'not_connected') this.showError(null);
  }

  /* Sends `action` with the panel busy (its busy line, aria-busy) until
   * the server answers ({ok: true, seq} or {ok: false, code, message},
   * PROTOCOL.md §5.3): a refusal is shown; an acceptance clears the error
   * and resets `form` (when given). Resolves to the answer, or to null,
   * sending nothing, while an earlier action still waits for its answer. */
  async send(action, form) {
    if (this.pending) return null;
    this.pending = true;
    this.busy.hidden = false;
    this.root.setAttribute('aria-busy', 'true');
    try {
      const answer = await this.act(action);
      if (answer.ok) {
        this.showError(null);
        if (form) form.reset();
      } else {
        this.showError(answer.code, answer.message);
      }
      return answer;
    } finally {
      this.pending = false;
      this.busy.hidden = true;
      this.root.removeAttribute('aria-busy');
    }
  }
}
