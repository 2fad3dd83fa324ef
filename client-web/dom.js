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
// typed or chosen in controls with the same id, and the focus.
export function keepingInput(root, render) {
  const values = new Map();
  for (const control of root.querySelectorAll('input[id], select[id], textarea[id]')) {
    values.set(control.id, control.type === 'checkbox' ? control.checked : control.value);
  }
  const focused = root.contains(document.activeElement) ? document.activeElement.id : '';
  render();
  for (const [id, value] of values) {
    const control = document.getElementById(id);
    if (!control || !root.contains(control)) continue;
    if (control.type === 'checkbox') {
      if (!control.closest('[hidden]')) control.checked = value;
    } else if (control.tagName === 'SELECT') {
      if ([...control.options].some((option) => option.value === value)) control.value = value;
    } else if (control.type !== 'file') {
      control.value = value;
    }
    control.dispatchEvent(new Event('change'));
  }
  if (focused) {
    const control = document.getElementById(focused);
    if (control && root.contains(control)) control.focus();
  }
  return Boolean(focused);
}
