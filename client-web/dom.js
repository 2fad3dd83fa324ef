// client-web/dom.js: building DOM nodes. Every text goes in as a text node
// (never as HTML), so nothing the server sends can become markup.

// h('p', {class: 'x', 'aria-label': 'y'}, 'text', child, ...): an element.
// Attributes: `class`, `for`, any attribute name, or on* => addEventListener
// (functions only, never strings), `hidden`/`disabled`/`checked`/... as
// booleans, `value` as the property. Children: nodes, strings, numbers,
// arrays of them; null, undefined and false are skipped.
export function h(tag, attributes, ...children) {
  const node = document.createElement(tag);
  setAttributes(node, attributes);
  append(node, children);
  return node;
}

const SVG = 'http://www.w3.org/2000/svg';

// The same for SVG elements.
export function s(tag, attributes, ...children) {
  const node = document.createElementNS(SVG, tag);
  setAttributes(node, attributes);
  append(node, children);
  return node;
}

const BOOLEAN = new Set(['hidden', 'disabled', 'checked', 'required', 'readOnly', 'selected',
  'multiple']);

function setAttributes(node, attributes) {
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      node.addEventListener(name.slice(2), value);
    } else if (BOOLEAN.has(name)) {
      node[name] = Boolean(value);
    } else if (name === 'value') {
      node.value = String(value);
    } else if (name === 'dataset') {
      Object.assign(node.dataset, value);
    } else {
      node.setAttribute(name, value === true ? '' : String(value));
    }
  }
}

export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// Replaces every child of `node`.
export function replace(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

// A <select>: options as [value, label] pairs; `selected` picks one.
export function select(attributes, options, selected) {
  return h('select', attributes, options.map(([value, label, extra]) =>
    h('option', { value, selected: value === selected, ...(extra || {}) }, label)));
}

// A label + control pair in a <div class="field">.
export function field(id, label, control, hint) {
  control.id = id;
  return h('div', { class: 'field' }, h('label', { for: id }, label), control,
    hint ? h('span', { class: 'hint' }, hint) : null);
}

// Runs `render()` (which rebuilds part of `root`), keeping what the user had
// typed or chosen in controls with the same id, the focus, and the caret
// or selection in a text field. `kept` (a Map the caller owns, optional)
// carries them over renders where the controls are absent (the umpire's
// hold shows no orders): a control that comes back gets its value, and the
// focus its place, even several renders later; the caller clears it when
// they no longer apply (another step). Returns {hadFocus, restored}:
// whether the focus was inside `root` before (or is to be put back there),
// and whether it was put back on a control of the new render.
export function keepingInput(root, render, kept = null) {
  const values = kept || new Map();
  for (const control of root.querySelectorAll('input[id], select[id], textarea[id]')) {
    if (control.type === 'file') continue;
    values.set(control.id, control.type === 'checkbox' ? control.checked : control.value);
  }
  const active = document.activeElement;
  let focus = null; // {id, start, end}
  if (active && active.id && root.contains(active)) {
    focus = { id: active.id, start: null, end: null };
    try {
      if (typeof active.selectionStart === 'number') { focus.start = active.selectionStart; focus.end = active.selectionEnd; }
    } catch { /* a control without a caret */ }
    if (kept) kept.set('\u0000focus', focus);
  } else if (kept && kept.has('\u0000focus') && root.querySelector('input, select, textarea, button')) {
    // The controls were on screen and the focus went elsewhere: nothing to put back.
    kept.delete('\u0000focus');
  } else if (kept) {
    focus = kept.get('\u0000focus') || null;
  }
  render();
  for (const [id, value] of values) {
    if (id === '\u0000focus') continue;
    const control = document.getElementById(id);
    if (!control || !root.contains(control)) continue;
    if (control.type === 'checkbox') {
      if (!control.closest('[hidden]') && !control.disabled) control.checked = value;
    } else if (control.tagName === 'SELECT') {
      if ([...control.options].some((option) => option.value === value)) control.value = value;
    } else if (control.type !== 'file') {
      control.value = value;
    }
    control.dispatchEvent(new Event('change'));
  }
  if (focus) {
    const control = document.getElementById(focus.id);
    if (control && root.contains(control)) {
      // Put back only while the reader is not busy elsewhere on the page.
      const elsewhere = document.activeElement && document.activeElement !== document.body &&
        !root.contains(document.activeElement) && document.activeElement.matches('input, select, textarea');
      if (!elsewhere) {
        control.focus();
        if (focus.start !== null) {
          try { control.setSelectionRange(focus.start, focus.end); } catch { /* not a text field */ }
        }
      }
      if (kept) kept.delete('\u0000focus');
      return { hadFocus: true, restored: !elsewhere };
    }
  }
  return { hadFocus: Boolean(focus), restored: false };
}
