// Loaded on demand (a separate chunk): xterm.js is most of the app's weight and only the
// terminal view needs it.
import '@xterm/xterm/css/xterm.css'
// Shipped fonts, so agents' glyphs render wherever the page is opened: DejaVu Mono draws the
// text, box drawing, ✻ and ❯; Noto Sans Symbols 2 fills in ⏺, ⏵, ⏸ and the braille spinner
// (fetched only when such a glyph is on screen, by unicode-range). Both are OFL.
import '@fontsource/dejavu-mono/400.css'
import '@fontsource/dejavu-mono/700.css'
import '@fontsource/noto-sans-symbols-2/symbols-400.css'
import '@fontsource/noto-sans-symbols-2/braille-400.css'
export { Terminal } from '@xterm/xterm'
export { FitAddon } from '@xterm/addon-fit'

export const TERM_FONT = "'DejaVu Mono', 'Noto Sans Symbols 2', ui-monospace, monospace"

/** xterm measures its cell from the font at open: wait for the font first (bounded). */
export async function fontsReady(): Promise<void> {
  if (!document.fonts?.load) return
  await Promise.race([
    Promise.all([document.fonts.load("13px 'DejaVu Mono'"), document.fonts.load("bold 13px 'DejaVu Mono'"), document.fonts.load("13px 'Noto Sans Symbols 2'", '⏺')]),
    new Promise((r) => setTimeout(r, 3000)),
  ]).catch(() => {})
}
