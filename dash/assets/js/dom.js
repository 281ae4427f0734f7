/* DOM helpers: look up an element, make HTML and SVG elements, empty one.
   Text from the server goes into the DOM only through textContent/attributes. */

const SVGNS = "http://www.w3.org/2000/svg";

export const $ = (id) => document.getElementById(id);
export function el(tag, attrs, text) {
  const e = document.createElement(tag);
  if (attrs) for (const k in attrs) if (attrs[k] != null) e.setAttribute(k, attrs[k]);
  if (text != null) e.textContent = String(text);
  return e;
}
export function sv(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  if (attrs) for (const k in attrs) if (attrs[k] != null) e.setAttribute(k, attrs[k]);
  if (text != null) e.textContent = String(text);
  return e;
}
export function clear(n) { while (n.firstChild) n.removeChild(n.firstChild); }
