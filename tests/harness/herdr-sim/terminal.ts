// One pane's real terminal: a process in node-pty whose output feeds a headless xterm, so reads
// return what a user would see, and raw output can be streamed to observers.
import pty from 'node-pty'
import xtermHeadless from '@xterm/headless'
import type { IBuffer, IBufferCell, IBufferLine, Terminal as XTerm } from '@xterm/headless'
import { foregroundGroup, processCwd, processesInGroup, type ProcInfo } from './proc.ts'

const { Terminal } = xtermHeadless as unknown as { Terminal: typeof XTerm }

export interface SpawnOptions {
  file: string
  args: string[]
  cwd: string
  env: Record<string, string>
  cols: number
  rows: number
}

export type ReadSource = 'visible' | 'recent' | 'recent_unwrapped' | 'detection'

export class PaneTerminal {
  readonly pty: pty.IPty
  readonly term: XTerm
  exited = false
  title = ''
  private outputListeners = new Set<(data: string) => void>()
  private exitListeners = new Set<(code: number, signal: number | undefined) => void>()
  private titleListeners = new Set<(title: string) => void>()
  private pendingWrites = 0
  private drainWaiters: Array<() => void> = []

  constructor(opts: SpawnOptions) {
    this.term = new Terminal({ cols: opts.cols, rows: opts.rows, scrollback: 5000, allowProposedApi: true })
    this.term.onTitleChange((t) => {
      this.title = t
      for (const l of this.titleListeners) l(t)
    })
    this.pty = pty.spawn(opts.file, opts.args, {
      name: 'xterm-256color',
      cols: opts.cols,
      rows: opts.rows,
      cwd: opts.cwd,
      env: opts.env,
    })
    this.pty.onData((data) => {
      this.pendingWrites += 1
      this.term.write(data, () => {
        this.pendingWrites -= 1
        if (this.pendingWrites === 0) for (const w of this.drainWaiters.splice(0)) w()
      })
      for (const l of this.outputListeners) l(data)
    })
    this.pty.onExit(({ exitCode, signal }) => {
      this.exited = true
      for (const l of this.exitListeners) l(exitCode, signal)
    })
  }

  get pid(): number {
    return this.pty.pid
  }

  get cols(): number {
    return this.term.cols
  }

  get rows(): number {
    return this.term.rows
  }

  onOutput(cb: (data: string) => void): () => void {
    this.outputListeners.add(cb)
    return () => this.outputListeners.delete(cb)
  }

  onExit(cb: (code: number, signal: number | undefined) => void): void {
    this.exitListeners.add(cb)
  }

  onTitle(cb: (title: string) => void): void {
    this.titleListeners.add(cb)
  }

  /** Resolves once xterm has parsed everything the PTY produced so far. */
  settled(): Promise<void> {
    if (this.pendingWrites === 0) return Promise.resolve()
    return new Promise((resolve) => this.drainWaiters.push(resolve))
  }

  write(data: string | Buffer): void {
    if (this.exited) throw new Error('pane process has exited')
    this.pty.write(data)
  }

  resize(cols: number, rows: number): void {
    if (this.exited || (cols === this.cols && rows === this.rows)) return
    this.pty.resize(cols, rows)
    this.term.resize(cols, rows)
  }

  /** Hangs up the whole process group, as closing a terminal does. */
  kill(signal: NodeJS.Signals = 'SIGHUP'): void {
    if (this.exited) return
    try {
      process.kill(-this.pid, signal)
    } catch {
      try {
        this.pty.kill(signal)
      } catch {
        // already gone
      }
    }
  }

  get bracketedPaste(): boolean {
    return this.term.modes.bracketedPasteMode
  }

  get applicationCursor(): boolean {
    return this.term.modes.applicationCursorKeysMode
  }

  get altScreen(): boolean {
    return this.term.buffer.active.type === 'alternate'
  }

  // --- process inspection -------------------------------------------------------------

  foregroundProcessGroup(): number | undefined {
    return this.exited ? undefined : foregroundGroup(this.pid)
  }

  /** True when the shell itself owns the terminal, i.e. it sits at its prompt. */
  atShellPrompt(): boolean {
    return this.foregroundProcessGroup() === this.pid
  }

  foregroundProcesses(): ProcInfo[] {
    const pgid = this.foregroundProcessGroup()
    return pgid === undefined ? [] : processesInGroup(pgid)
  }

  foregroundCwd(): string | undefined {
    const pgid = this.foregroundProcessGroup()
    return processCwd(pgid ?? this.pid) ?? processCwd(this.pid)
  }

  // --- screen reads (protocol doc section 6) ------------------------------------------

  read(source: ReadSource, format: 'text' | 'ansi', lines: number | undefined): { text: string; truncated: boolean } {
    const ansi = format === 'ansi' && source !== 'detection'
    const buf = this.term.buffer.active
    if (source === 'visible' || source === 'detection') {
      const rows = trimTrailingBlank(this.rowRange(buf, buf.baseY, buf.baseY + this.rows), buf)
      return keepLast(
        rows.map((i) => this.lineText(buf, i, ansi)),
        lines,
      )
    }
    const n = Math.min(lines ?? 80, 1000)
    const all = trimTrailingBlank(this.rowRange(buf, 0, buf.length), buf)
    const cursorRow = buf.baseY + buf.cursorY
    const end = Math.max(all.length ? all[all.length - 1] + 1 : 0, Math.min(cursorRow + 1, buf.length))
    const start = Math.max(0, end - n)
    const rows = this.rowRange(buf, start, end)
    const truncated = start > 0
    if (source === 'recent') return { text: rows.map((i) => this.lineText(buf, i, ansi) + '\n').join(''), truncated }
    // recent_unwrapped: soft-wrapped continuation rows join the row before them.
    const logical: string[] = []
    for (const i of rows) {
      const text = this.lineText(buf, i, ansi, !(buf.getLine(i + 1)?.isWrapped ?? false))
      if (buf.getLine(i)?.isWrapped && logical.length > 0) logical[logical.length - 1] += text
      else logical.push(text)
    }
    return { text: logical.map((l) => l + '\n').join(''), truncated }
  }

  /** A full redraw of the current screen, cropped to a cols×rows viewport, for stream observers. */
  fullFrame(cols: number, rows: number): string {
    const buf = this.term.buffer.active
    let out = '\x1b[0m\x1b[H\x1b[2J'
    for (let r = 0; r < Math.min(rows, this.rows); r++) {
      out += `\x1b[${r + 1};1H` + this.lineText(buf, buf.baseY + r, true, true, cols)
    }
    out += `\x1b[0m\x1b[${Math.min(buf.cursorY, rows - 1) + 1};${Math.min(buf.cursorX, cols - 1) + 1}H`
    return out
  }

  private rowRange(buf: IBuffer, start: number, end: number): number[] {
    const out: number[] = []
    for (let i = Math.max(0, start); i < Math.min(end, buf.length); i++) out.push(i)
    return out
  }

  private lineText(buf: IBuffer, row: number, ansi: boolean, trimRight = true, maxCols?: number): string {
    const line = buf.getLine(row)
    if (!line) return ''
    if (!ansi) {
      const text = line.translateToString(trimRight, 0, maxCols)
      return trimRight ? text.replace(/\s+$/u, '') : text
    }
    return serializeLine(line, this.term.cols, maxCols, trimRight)
  }
}

function trimTrailingBlank(rows: number[], buf: IBuffer): number[] {
  let end = rows.length
  while (
    end > 0 &&
    (buf
      .getLine(rows[end - 1])
      ?.translateToString(true)
      .trim() ?? '') === ''
  )
    end--
  return rows.slice(0, end)
}

// For visible/detection reads `lines` keeps the last N newline-terminated lines.
function keepLast(lines: string[], n: number | undefined): { text: string; truncated: boolean } {
  if (n === undefined) return { text: lines.map((l) => l + '\n').join(''), truncated: false }
  const cap = Math.min(n, 1000)
  const kept = lines.slice(Math.max(0, lines.length - cap))
  return { text: kept.map((l) => l + '\n').join(''), truncated: kept.length < lines.length }
}

// --- SGR serialization ----------------------------------------------------------------

interface Style {
  fg: string
  bg: string
  flags: string
}

const DEFAULT_STYLE: Style = { fg: '', bg: '', flags: '' }

function colorCode(cell: IBufferCell, isFg: boolean): string {
  const mode = isFg ? cell.getFgColorMode() : cell.getBgColorMode()
  const color = isFg ? cell.getFgColor() : cell.getBgColor()
  const isDefault = isFg ? cell.isFgDefault() : cell.isBgDefault()
  if (isDefault) return ''
  const isPalette = isFg ? cell.isFgPalette() : cell.isBgPalette()
  const isRgb = isFg ? cell.isFgRGB() : cell.isBgRGB()
  if (isRgb) return `${isFg ? 38 : 48};2;${(color >> 16) & 255};${(color >> 8) & 255};${color & 255}`
  if (isPalette) {
    if (color < 8) return String((isFg ? 30 : 40) + color)
    if (color < 16) return String((isFg ? 90 : 100) + color - 8)
    return `${isFg ? 38 : 48};5;${color}`
  }
  return mode ? '' : ''
}

function styleOf(cell: IBufferCell): Style {
  const flags = [
    cell.isBold() ? '1' : '',
    cell.isDim() ? '2' : '',
    cell.isItalic() ? '3' : '',
    cell.isUnderline() ? '4' : '',
    cell.isBlink() ? '5' : '',
    cell.isInverse() ? '7' : '',
    cell.isInvisible() ? '8' : '',
    cell.isStrikethrough() ? '9' : '',
  ]
    .filter(Boolean)
    .join(';')
  return { fg: colorCode(cell, true), bg: colorCode(cell, false), flags }
}

function sameStyle(a: Style, b: Style): boolean {
  return a.fg === b.fg && a.bg === b.bg && a.flags === b.flags
}

function sgr(s: Style): string {
  const parts = ['0', s.flags, s.fg, s.bg].filter(Boolean)
  return `\x1b[${parts.join(';')}m`
}

function serializeLine(line: IBufferLine, cols: number, maxCols: number | undefined, trimRight: boolean): string {
  const limit = Math.min(cols, maxCols ?? cols, line.length)
  let last = -1
  const cells: Array<{ chars: string; style: Style }> = []
  for (let x = 0; x < limit; x++) {
    const cell = line.getCell(x)
    if (!cell) break
    if (cell.getWidth() === 0) continue
    const chars = cell.getChars() || ' '
    const style = styleOf(cell)
    cells.push({ chars, style })
    if (chars !== ' ' || style.bg !== '' || style.flags.includes('7')) last = cells.length - 1
  }
  const used = trimRight ? cells.slice(0, last + 1) : cells
  let out = ''
  let cur = DEFAULT_STYLE
  for (const c of used) {
    if (!sameStyle(c.style, cur)) {
      out += sgr(c.style)
      cur = c.style
    }
    out += c.chars
  }
  if (!sameStyle(cur, DEFAULT_STYLE)) out += '\x1b[0m'
  return out
}
