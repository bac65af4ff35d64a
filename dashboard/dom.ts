/** Small DOM builders: text goes in as text nodes, never as HTML. */

export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** A figure that the tests and a screen reader can read: its label, the shown text, the exact value. */
export function tile(label: string, shown: string, testId: string, value: number | string): HTMLElement {
  return element(
    'div',
    { class: 'tile' },
    element('div', { class: 'tile-label' }, label),
    element('div', { class: 'tile-value', 'data-testid': testId, 'data-value': String(value) }, shown),
  );
}

/** An accessible table: a caption, column headers with scope, and one row per entry. */
export function table(caption: string, headers: string[], rows: (string | Node)[][]): HTMLTableElement {
  return element(
    'table',
    {},
    element('caption', {}, caption),
    element('thead', {}, element('tr', {}, ...headers.map((h) => element('th', { scope: 'col' }, h)))),
    element(
      'tbody',
      {},
      ...rows.map((cells) => element('tr', {}, ...cells.map((c) => element('td', {}, c)))),
    ),
  );
}

/** The numbers behind a chart, one click (or Enter) away. */
export function dataTable(caption: string, headers: string[], rows: (string | Node)[][]): HTMLElement {
  return element(
    'details',
    { class: 'data' },
    element('summary', {}, 'Show the numbers'),
    table(caption, headers, rows),
  );
}
