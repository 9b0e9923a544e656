// A tab's split tree and the rectangles herdr reports for it (PaneLayoutSnapshot).

export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

export type Direction = 'right' | 'down'

export type LayoutNode<P> = { kind: 'leaf'; pane: P } | { kind: 'split'; direction: Direction; ratio: number; first: LayoutNode<P>; second: LayoutNode<P> }

export function leaf<P>(pane: P): LayoutNode<P> {
  return { kind: 'leaf', pane }
}

/** Replaces `target`'s leaf with a split holding it first and `added` second. */
export function splitAt<P>(node: LayoutNode<P>, target: P, added: P, direction: Direction, ratio: number): LayoutNode<P> {
  if (node.kind === 'leaf') {
    return node.pane === target ? { kind: 'split', direction, ratio, first: node, second: leaf(added) } : node
  }
  return { ...node, first: splitAt(node.first, target, added, direction, ratio), second: splitAt(node.second, target, added, direction, ratio) }
}

/** Removes a pane; its sibling takes the parent split's place. Undefined when the tree empties. */
export function removeLeaf<P>(node: LayoutNode<P>, target: P): LayoutNode<P> | undefined {
  if (node.kind === 'leaf') return node.pane === target ? undefined : node
  const first = removeLeaf(node.first, target)
  const second = removeLeaf(node.second, target)
  if (!first) return second
  if (!second) return first
  return { ...node, first, second }
}

/** Panes in layout order (left to right, top to bottom). */
export function panesInOrder<P>(node: LayoutNode<P>): P[] {
  return node.kind === 'leaf' ? [node.pane] : [...panesInOrder(node.first), ...panesInOrder(node.second)]
}

export interface PlacedPane<P> {
  pane: P
  rect: Rect
}
export interface PlacedSplit {
  id: string
  direction: Direction
  ratio: number
  rect: Rect
}

// Children are separated by a one-cell border, which herdr subtracts before reporting rects.
export function place<P>(node: LayoutNode<P>, area: Rect): { panes: PlacedPane<P>[]; splits: PlacedSplit[] } {
  const panes: PlacedPane<P>[] = []
  const splits: PlacedSplit[] = []
  const walk = (n: LayoutNode<P>, rect: Rect, path: string): void => {
    if (n.kind === 'leaf') {
      panes.push({ pane: n.pane, rect })
      return
    }
    splits.push({ id: `split_${splits.length}_${path === '' ? 'root' : path}`, direction: n.direction, ratio: n.ratio, rect })
    const [a, b] = divide(rect, n.direction, n.ratio)
    walk(n.first, a, `${path}0`)
    walk(n.second, b, `${path}1`)
  }
  walk(node, area, '')
  return { panes, splits }
}

function divide(rect: Rect, direction: Direction, ratio: number): [Rect, Rect] {
  if (direction === 'right') {
    const usable = Math.max(rect.width - 1, 2)
    const w1 = Math.max(1, Math.min(usable - 1, Math.round(usable * ratio)))
    return [
      { x: rect.x, y: rect.y, width: w1, height: rect.height },
      { x: rect.x + w1 + 1, y: rect.y, width: Math.max(1, usable - w1), height: rect.height },
    ]
  }
  const usable = Math.max(rect.height - 1, 2)
  const h1 = Math.max(1, Math.min(usable - 1, Math.round(usable * ratio)))
  return [
    { x: rect.x, y: rect.y, width: rect.width, height: h1 },
    { x: rect.x, y: rect.y + h1 + 1, width: rect.width, height: Math.max(1, usable - h1) },
  ]
}
